//! Each file tool's published input schema and its parser accept the same argument objects:
//! the test kit's agreement check, run on the example's own declarations.

use toolkit::testing::check_agreement;

use crate::tools::{
    CreateDirectory, EditFile, GetFileInfo, ListAllowedDirectories, ListDirectory, MoveFile,
    ReadMultipleFiles, ReadTextFile, SearchFiles, WriteFile,
};

#[test]
fn read_text_file_schema_and_parser_agree() {
    check_agreement::<ReadTextFile>();
}

#[test]
fn read_multiple_files_schema_and_parser_agree() {
    check_agreement::<ReadMultipleFiles>();
}

#[test]
fn write_file_schema_and_parser_agree() {
    check_agreement::<WriteFile>();
}

#[test]
fn edit_file_schema_and_parser_agree() {
    check_agreement::<EditFile>();
}

#[test]
fn create_directory_schema_and_parser_agree() {
    check_agreement::<CreateDirectory>();
}

#[test]
fn list_directory_schema_and_parser_agree() {
    check_agreement::<ListDirectory>();
}

#[test]
fn search_files_schema_and_parser_agree() {
    check_agreement::<SearchFiles>();
}

#[test]
fn get_file_info_schema_and_parser_agree() {
    check_agreement::<GetFileInfo>();
}

#[test]
fn move_file_schema_and_parser_agree() {
    check_agreement::<MoveFile>();
}

#[test]
fn list_allowed_directories_schema_and_parser_agree() {
    check_agreement::<ListAllowedDirectories>();
}

//! The notebook's tools as their adopter checks them: each one's published input schema and
//! the checks its arguments get accept exactly the same objects (the test kit's property check).

use adopter::{NotesAdd, NotesDelete};
use toolkit::testing::check_agreement;

#[test]
fn notes_add_schema_and_checks_agree() {
    check_agreement::<NotesAdd>();
}

#[test]
fn notes_delete_schema_and_checks_agree() {
    check_agreement::<NotesDelete>();
}

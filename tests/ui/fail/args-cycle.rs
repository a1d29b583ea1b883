use toolkit::Args;

#[derive(Args)]
pub struct Folder {
    pub files: Vec<File>,
}

#[derive(Args)]
pub struct File {
    pub parent: Option<Folder>,
}

fn main() {}

use toolkit::Choice;

#[derive(Choice)]
pub struct SortBy {
    pub name: bool,
}

#[derive(Choice)]
pub enum Nothing {}

fn main() {}

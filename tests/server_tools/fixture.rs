//! The hand-made catalogue most tests run on, small enough that every order, tie and average is
//! known. Ids are chosen so that insertion order is not id order.

use serde_json::{Value, json};
use store::{NewAuthor, NewMovie, NewReview};
use uuid::Uuid;

use crate::client::{Backend, Client};

pub const ALIEN: Uuid = Uuid::from_u128(0x5000_0000_0000_4000_8000_0000_0000_0001);
pub const ALIEN_REMAKE: Uuid = Uuid::from_u128(0x1000_0000_0000_4000_8000_0000_0000_0003);
pub const ALIEN_LOWER: Uuid = Uuid::from_u128(0x3000_0000_0000_4000_8000_0000_0000_0002);
pub const ECOLE: Uuid = Uuid::from_u128(0x2000_0000_0000_4000_8000_0000_0000_0004);
pub const PERCENT: Uuid = Uuid::from_u128(0x6000_0000_0000_4000_8000_0000_0000_0005);
pub const UNDERSCORE: Uuid = Uuid::from_u128(0x7000_0000_0000_4000_8000_0000_0000_0006);
pub const ZEBRA: Uuid = Uuid::from_u128(0x4000_0000_0000_4000_8000_0000_0000_0007);

pub const ZOE: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0001);
pub const JOSE: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0002);
pub const SAM_B: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0004);
pub const SAM_A: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0003);
pub const ADA: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0005);
pub const QUIET: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0006);

pub const NOBODY: Uuid = Uuid::from_u128(0xdead_0000_0000_4000_8000_0000_0000_0000);

pub fn movies() -> Vec<NewMovie> {
    [
        (ALIEN, "Alien"),
        (ALIEN_LOWER, "alien"),
        (ALIEN_REMAKE, "Alien"),
        (ECOLE, "École du cinéma"),
        (PERCENT, "100% Pure_Drama"),
        (UNDERSCORE, "100_ Pure Drama"),
        (ZEBRA, "Zebra"),
    ]
    .into_iter()
    .map(|(id, title)| NewMovie {
        id,
        title: title.to_owned(),
    })
    .collect()
}

pub fn authors() -> Vec<NewAuthor> {
    [
        (ZOE, "Zoë", "Ångström"),
        (JOSE, "José", "Núñez"),
        (SAM_B, "Sam", "Rossi"),
        (SAM_A, "Sam", "Rossi"),
        (ADA, "Ada", "lovelace"),
        (QUIET, "Quiet", "Reviews"),
    ]
    .into_iter()
    .map(|(id, first, last)| NewAuthor {
        id,
        first_name: first.to_owned(),
        last_name: last.to_owned(),
    })
    .collect()
}

/// Review ids are `0x…r` with `r` counting up in insertion order.
pub fn reviews() -> Vec<NewReview> {
    [
        // Alien: 3, 3, 3, 4 → 3.25 → 3.3
        (ALIEN, ZOE, 3),
        (ALIEN, JOSE, 3),
        (ALIEN, SAM_B, 3),
        (ALIEN, SAM_A, 4),
        // alien: 2, 3, 3, 3 → 2.75 → 2.8
        (ALIEN_LOWER, ADA, 2),
        (ALIEN_LOWER, ZOE, 3),
        (ALIEN_LOWER, ZOE, 3),
        (ALIEN_LOWER, JOSE, 3),
        // Alien (remake): 3, 3, 4 → 3.33 → 3.3
        (ALIEN_REMAKE, ADA, 3),
        (ALIEN_REMAKE, SAM_A, 3),
        (ALIEN_REMAKE, JOSE, 4),
        (ECOLE, ZOE, 5),
        (PERCENT, ADA, 1),
        (PERCENT, JOSE, 2),
        (UNDERSCORE, SAM_B, 4),
    ]
    .into_iter()
    .enumerate()
    .map(|(index, (movie_id, author_id, stars))| NewReview {
        id: review(index),
        movie_id,
        author_id,
        stars,
    })
    .collect()
}

/// The id of the `index`th review above.
pub fn review(index: usize) -> Uuid {
    Uuid::from_u128(0xb000_0000_0000_4000_8000_0000_0000_0000 | (15 - index as u128))
}

/// A server on a new database of `backend` holding the catalogue.
pub async fn client(backend: Backend) -> Client {
    Client::with(backend, &movies(), &authors(), &reviews()).await
}

/// The `index`th review of [`reviews`] as the tools show it.
pub fn review_json(
    index: usize,
    movie: Uuid,
    title: &str,
    author: Uuid,
    name: &str,
    stars: u8,
) -> Value {
    review_json_id(review(index), movie, title, author, name, stars)
}

/// The review with this id as the tools show it.
pub fn review_json_id(
    id: Uuid,
    movie: Uuid,
    title: &str,
    author: Uuid,
    name: &str,
    stars: u8,
) -> Value {
    json!({
        "id": id,
        "stars": stars,
        "movieId": movie,
        "movieTitle": title,
        "authorId": author,
        "authorName": name,
    })
}

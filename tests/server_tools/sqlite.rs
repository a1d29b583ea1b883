//! The SQLite backend's own mechanics, checked with SQL of the tests' own on the database file,
//! so these run on SQLite only: the triggers that keep counts, ranks and copies when rows are
//! written by hand, the flags that say whether rows follow the search orders (and search when
//! they do not), and the schema a seed leaves behind. What every backend must do is checked
//! through the tools by the other modules.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use movie_reviews_mcp::demo::Size;
use serde_json::{Value, json};
use store::{Database, NewAuthor, NewMovie, Store, fold};
use uuid::Uuid;

use crate::client::{Backend, Client, new_sqlite_file, seed_demo};
use crate::fixture::{self, *};
use crate::paging::{
    search_finds_exactly_what_contains_the_term_on, search_pages_are_right_on, targets_in_the_order,
};

/// A connection of its own to the SQLite file at `path`, as another program would open.
async fn connect_to(path: &Path) -> sqlx::SqliteConnection {
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path);
    <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
        .await
        .unwrap()
}

/// A server on a new SQLite file holding the fixture, and the path of that file.
async fn fixture_on_file() -> (Client, PathBuf) {
    let (path, guard) = new_sqlite_file("reviews.db");
    let database = Database::Sqlite(path.clone());
    let client = Client::loaded(&database, guard, &movies(), &authors(), &reviews()).await;
    (client, path)
}

/// Whether the movies' and the authors' rowids follow their search orders, as the database at
/// `path` records it.
async fn rows_in_order(path: &Path) -> (bool, bool) {
    let mut connection = connect_to(path).await;
    sqlx::query_as("SELECT movies_in_order, authors_in_order FROM totals")
        .fetch_one(&mut connection)
        .await
        .unwrap()
}

/// Reviews come and go without touching the order of movies and authors, so the tools never
/// cost search its fast path; a change to a title, a name or a rowid by hand does.
#[tokio::test]
async fn only_changes_to_titles_names_or_rowids_put_rows_out_of_search_order() {
    let (client, path) = fixture_on_file().await;
    assert_eq!(rows_in_order(&path).await, (true, true));
    let written = client
        .ok(
            "reviews_write",
            json!({ "movieId": ZEBRA, "authorId": ADA, "stars": 4 }),
        )
        .await;
    client
        .ok(
            "reviews_write",
            json!({ "reviewId": written["id"], "stars": 2 }),
        )
        .await;
    client
        .ok("reviews_delete", json!({ "reviewId": written["id"] }))
        .await;
    assert_eq!(rows_in_order(&path).await, (true, true));

    let mut connection = connect_to(&path).await;
    for (sql, expected) in [
        (
            "UPDATE movies SET review_count = review_count",
            (true, true),
        ),
        (
            "DELETE FROM movies WHERE id NOT IN (SELECT movie_id FROM reviews)",
            (true, true),
        ),
        (
            "UPDATE movies SET _rowid_ = _rowid_ + 1000
             WHERE _rowid_ = (SELECT MIN(_rowid_) FROM movies)",
            (false, true),
        ),
        ("UPDATE totals SET movies_in_order = 1", (true, true)),
        (
            "UPDATE movies SET title = 'Alien 2' WHERE title = 'Alien' AND review_count = 3",
            (false, true),
        ),
        (
            "UPDATE authors SET first_name = 'Adah' WHERE first_name = 'Ada'",
            (false, false),
        ),
    ] {
        sqlx::query(sql).execute(&mut connection).await.unwrap();
        assert_eq!(rows_in_order(&path).await, expected, "after {sql}");
    }
}

/// Adds a movie and an author to the database at `path` with plain SQL, as a hand edit or
/// another program would, outside any load: the triggers then say the rows no longer follow
/// the search orders, and search must fall back to the ways that do not need them to. Returns
/// whether each order was kept before and after.
async fn add_by_hand(path: &Path, movie: &NewMovie, author: &NewAuthor) -> [bool; 4] {
    let mut connection = connect_to(path).await;
    let in_order = "SELECT movies_in_order, authors_in_order FROM totals";
    let before: (bool, bool) = sqlx::query_as(in_order)
        .fetch_one(&mut connection)
        .await
        .unwrap();
    insert_movie_by_hand(&mut connection, movie).await;
    insert_author_by_hand(&mut connection, author).await;
    let after: (bool, bool) = sqlx::query_as(in_order)
        .fetch_one(&mut connection)
        .await
        .unwrap();
    [before.0, before.1, after.0, after.1]
}

/// Inserts a movie with plain SQL, its folded title worked out here.
async fn insert_movie_by_hand(connection: &mut sqlx::SqliteConnection, movie: &NewMovie) {
    sqlx::query("INSERT INTO movies (id, title, title_folded) VALUES (?1, ?2, ?3)")
        .bind(movie.id)
        .bind(&movie.title)
        .bind(fold(&movie.title))
        .execute(connection)
        .await
        .unwrap();
}

/// Inserts an author with plain SQL, their folded names worked out here.
async fn insert_author_by_hand(connection: &mut sqlx::SqliteConnection, author: &NewAuthor) {
    sqlx::query(
        "INSERT INTO authors (id, first_name, last_name, first_name_folded, last_name_folded,
                              full_name_folded)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .bind(author.id)
    .bind(&author.first_name)
    .bind(&author.last_name)
    .bind(fold(&author.first_name))
    .bind(fold(&author.last_name))
    .bind(fold(&format!("{} {}", author.first_name, author.last_name)))
    .execute(connection)
    .await
    .unwrap();
}

/// Movies and authors added or renamed by hand, outside a load, take their place in the review
/// order: a title or name between two others, forty titles into one gap (more than the room
/// a load leaves, so every movie is ranked afresh), a movie and an author renamed, whose
/// reviews follow them, and a review written by hand with only its ids and stars.
#[tokio::test]
async fn reviews_stay_in_order_when_titles_and_names_change_by_hand() {
    let (client, path) = fixture_on_file().await;
    let mut connection = connect_to(&path).await;
    let mut added = Vec::new();
    // Last first, so that each lands between "alien" and the one added before it.
    for number in (1..=40).rev() {
        let movie = NewMovie {
            id: Uuid::from_u128(0xc000 + number),
            title: format!("Alien {number:02}"),
        };
        insert_movie_by_hand(&mut connection, &movie).await;
        added.push(movie.id);
    }
    let bea = NewAuthor {
        id: Uuid::from_u128(0xd001),
        first_name: "Bea".to_owned(),
        last_name: "Álvarez".to_owned(),
    };
    insert_author_by_hand(&mut connection, &bea).await;
    let bea = bea.id;
    for sql in [
        "UPDATE movies SET title = 'Aardvark', title_folded = 'aardvark' WHERE id = ?1",
        "UPDATE authors SET last_name = 'Aaron', last_name_folded = 'aaron' WHERE id = ?2",
    ] {
        sqlx::query(sql)
            .bind(ALIEN_REMAKE)
            .bind(JOSE)
            .execute(&mut connection)
            .await
            .unwrap();
    }
    sqlx::query("INSERT INTO reviews (id, movie_id, author_id, stars) VALUES (?1, ?2, ?3, 5)")
        .bind(Uuid::from_u128(0xe001))
        .bind(ZEBRA)
        .bind(QUIET)
        .execute(&mut connection)
        .await
        .unwrap();
    let mut written = 0;
    for (index, movie) in added.iter().enumerate() {
        for author in [bea, ZOE, QUIET].iter().take(1 + index % 3) {
            written += 1;
            client
                .ok(
                    "reviews_write",
                    json!({ "movieId": movie, "authorId": author, "stars": 3 }),
                )
                .await;
        }
    }
    client
        .ok(
            "reviews_write",
            json!({ "movieId": ALIEN, "authorId": QUIET, "stars": 1 }),
        )
        .await;

    // The titles and names as the database holds them now, by id.
    let titles: HashMap<String, String> =
        sqlx::query_as::<_, (Uuid, String)>("SELECT id, title FROM movies")
            .fetch_all(&mut connection)
            .await
            .unwrap()
            .into_iter()
            .map(|(id, title)| (id.to_string(), title))
            .collect();
    let names: HashMap<String, (String, String)> = sqlx::query_as::<_, (Uuid, String, String)>(
        "SELECT id, first_name, last_name FROM authors",
    )
    .fetch_all(&mut connection)
    .await
    .unwrap()
    .into_iter()
    .map(|(id, first, last)| (id.to_string(), (first, last)))
    .collect();
    let reviews = client.all_pages("reviews_list", json!({}), 7).await;
    // The fixture's, the one by hand, and those written through the tool.
    assert_eq!(reviews.len(), 15 + 1 + written + 1);
    let key = |review: &Value| {
        let text = |key: &str| review[key].as_str().unwrap().to_owned();
        let title = titles[&text("movieId")].clone();
        let (first, last) = names[&text("authorId")].clone();
        assert_eq!(
            text("movieTitle"),
            title,
            "a review shows its movie's title"
        );
        assert_eq!(text("authorName"), format!("{first} {last}"));
        (
            fold(&title),
            title,
            fold(&last),
            last,
            fold(&first),
            first,
            text("id"),
        )
    };
    let keys: Vec<_> = reviews.iter().map(key).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "reviews_list is in review order");
    // A review written before both its movie and its author were renamed.
    assert!(
        keys.iter()
            .any(|key| key.0 == "aardvark" && key.2 == "aaron")
    );

    // Each movie's and each author's reviews, through both tools that list them, are the whole
    // list's reviews of it, in the same order.
    for (id, _) in titles {
        let of_movie: Vec<&Value> = reviews.iter().filter(|r| r["movieId"] == *id).collect();
        let listed = client
            .all_pages("reviews_list", json!({ "movieId": id }), 3)
            .await;
        assert_eq!(listed.iter().collect::<Vec<_>>(), of_movie);
        let movie = client.ok("movies_get", json!({ "movieId": id })).await;
        assert_eq!(
            movie["reviews"]
                .as_array()
                .unwrap()
                .iter()
                .collect::<Vec<_>>(),
            of_movie
        );
    }
    for (id, _) in names {
        let by_author: Vec<&Value> = reviews.iter().filter(|r| r["authorId"] == *id).collect();
        let listed = client
            .all_pages("reviews_list", json!({ "authorId": id }), 3)
            .await;
        assert_eq!(listed.iter().collect::<Vec<_>>(), by_author);
    }
}

/// Hand edits the triggers cannot follow are refused, and those they can are counted: an
/// `INSERT OR REPLACE` of an existing movie or author would give it a new rank and counts behind
/// its reviews' backs; a review moved to another movie moves its count and stars.
#[tokio::test]
async fn replacing_a_movie_by_hand_is_refused_and_moving_a_review_moves_its_counts() {
    let (client, path) = fixture_on_file().await;
    let mut connection = connect_to(&path).await;
    let replace_movie = sqlx::query(
        "INSERT OR REPLACE INTO movies (id, title, title_folded) VALUES (?1, 'Zulu', 'zulu')",
    )
    .bind(ALIEN)
    .execute(&mut connection)
    .await
    .unwrap_err();
    assert!(replace_movie.to_string().contains("change it with UPDATE"));
    let replace_author = sqlx::query(
        "INSERT OR REPLACE INTO authors (id, first_name, last_name, first_name_folded,
                                         last_name_folded, full_name_folded)
         VALUES (?1, 'A', 'B', 'a', 'b', 'a b')",
    )
    .bind(ZOE)
    .execute(&mut connection)
    .await
    .unwrap_err();
    assert!(replace_author.to_string().contains("change it with UPDATE"));

    // Review 11 is École's, by Zoë, five stars; moved to Zebra.
    sqlx::query("UPDATE reviews SET movie_id = ?1 WHERE id = ?2")
        .bind(ZEBRA)
        .bind(review(11))
        .execute(&mut connection)
        .await
        .unwrap();
    let zebra = client.ok("movies_get", json!({ "movieId": ZEBRA })).await;
    assert_eq!(zebra["reviewCount"], json!(1));
    assert_eq!(zebra["averageStars"], json!(5.0));
    assert_eq!(zebra["reviews"][0]["id"], json!(review(11)));
    assert_eq!(zebra["reviews"][0]["movieTitle"], json!("Zebra"));
    let ecole = client.ok("movies_get", json!({ "movieId": ECOLE })).await;
    assert_eq!(ecole["reviewCount"], json!(0));
    assert_eq!(ecole["reviews"], json!([]));
}

/// A database whose every movie, author and review was written by hand, through the triggers
/// (which rank each row and copy titles and names onto its reviews), reads exactly as one
/// loaded with the same data, whose ranks and copies the load works out itself.
#[tokio::test]
async fn a_database_written_by_hand_reads_as_one_loaded_with_the_same_data() {
    let (path, guard) = new_sqlite_file("by-hand.db");
    // Opening creates the schema and nothing else.
    Store::open(&Database::Sqlite(path.clone()))
        .await
        .unwrap()
        .close()
        .await;
    let mut connection = connect_to(&path).await;
    for movie in movies() {
        insert_movie_by_hand(&mut connection, &movie).await;
    }
    for author in authors() {
        insert_author_by_hand(&mut connection, &author).await;
    }
    for review in reviews() {
        sqlx::query("INSERT INTO reviews (id, movie_id, author_id, stars) VALUES (?1, ?2, ?3, ?4)")
            .bind(review.id)
            .bind(review.movie_id)
            .bind(review.author_id)
            .bind(review.stars)
            .execute(&mut connection)
            .await
            .unwrap();
    }
    drop(connection);

    let by_hand = Client::opening(&Database::Sqlite(path.clone()), guard).await;
    let loaded = fixture::client(Backend::Sqlite).await;
    assert_eq!(by_hand.everything().await, loaded.everything().await);
    for movie in [ALIEN, ALIEN_LOWER, ECOLE] {
        let arguments = json!({ "movieId": movie });
        assert_eq!(
            by_hand.ok("movies_get", arguments.clone()).await,
            loaded.ok("movies_get", arguments).await
        );
    }
    for author in [ZOE, JOSE, SAM_A] {
        let arguments = json!({ "authorId": author });
        assert_eq!(
            by_hand.ok("reviews_list", arguments.clone()).await,
            loaded.ok("reviews_list", arguments).await
        );
    }
}

/// `paging::search_finds_exactly_what_contains_the_term` once rows are added by hand. As loaded,
/// the rows follow the search orders and pages come from the trigram index in rowid order; after
/// rows are added by hand they do not, and pages are found by walking or sorting (see
/// store/src/sqlite/search.rs).
#[tokio::test]
async fn search_finds_exactly_what_contains_the_term_after_rows_are_added_by_hand() {
    let (path, guard) = new_sqlite_file("demo.db");
    let store = movie_reviews_mcp::commands::open_or_create(&Database::Sqlite(path.clone()))
        .await
        .unwrap();
    // Both sort before every row of the demo set, so neither follows its order.
    let movie = NewMovie {
        id: Uuid::from_u128(0xfeed_0000_0000_4000_8000_0000_0000_0001),
        title: "Aaa global alliance by hand".to_owned(),
    };
    let author = NewAuthor {
        id: Uuid::from_u128(0xfeed_0000_0000_4000_8000_0000_0000_0002),
        first_name: "Ent".to_owned(),
        last_name: "Aaaby Hand".to_owned(),
    };
    assert_eq!(
        add_by_hand(&path, &movie, &author).await,
        [true, true, false, false]
    );
    let client = Client::serving(store, guard).await;
    search_finds_exactly_what_contains_the_term_on(&client).await;
}

/// `paging::search_pages_are_right_wherever_the_matches_stand_in_the_order` once a movie that
/// comes first in title order is added by hand, last in rowid order.
#[tokio::test]
async fn search_pages_are_right_wherever_the_matches_stand_after_a_row_is_added_by_hand() {
    let mut movies = targets_in_the_order();
    let (path, guard) = new_sqlite_file("reviews.db");
    let store = Store::open(&Database::Sqlite(path.clone())).await.unwrap();
    store
        .replace_all(&movies, &[], &[], &mut |_, _, _| {})
        .await
        .unwrap();
    // First in title order, last in rowid order.
    let movie = NewMovie {
        id: Uuid::from_u128(0x0100_0000_0000_4000_8000_0000_0000_0fff),
        title: "Aaa target by hand".to_owned(),
    };
    let author = NewAuthor {
        id: Uuid::from_u128(0x0200_0000_0000_4000_8000_0000_0000_0fff),
        first_name: "Hand".to_owned(),
        last_name: "By".to_owned(),
    };
    assert_eq!(
        add_by_hand(&path, &movie, &author).await,
        [true, true, false, false]
    );
    movies.push(movie);
    let client = Client::serving(store, guard).await;
    search_pages_are_right_on(&client, &movies).await;
}

/// Seeding drops the indexes and triggers while it loads: seeding over a database that holds
/// data and has been written to must leave every index and trigger as a new database seeded
/// alike has them, reporting each stage as it goes. (That the data, the counts kept on the next
/// write and search then agree with a new database is checked on every backend, in `seeding`.)
#[tokio::test]
async fn seeding_over_a_used_database_leaves_the_schema_of_a_new_one() {
    let size = Size {
        movies: 60,
        authors: 15,
        reviews: 300,
    };
    let schema = |path: PathBuf| async move {
        let store = Store::open(&Database::Sqlite(path.clone())).await.unwrap();
        store.close().await;
        let mut connection = connect_to(&path).await;
        let schema: Vec<(String, String)> = sqlx::query_as(
            "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name",
        )
        .fetch_all(&mut connection)
        .await
        .unwrap();
        schema
    };
    let (fresh, _fresh_guard) = new_sqlite_file("fresh.db");
    let (used, used_guard) = new_sqlite_file("used.db");
    seed_demo(&Database::Sqlite(fresh.clone()), size, 5).await;
    let fresh_schema = schema(fresh.clone()).await;
    assert!(
        fresh_schema
            .iter()
            .any(|(name, _)| name == "reviews_by_author_in_order")
    );
    assert!(
        fresh_schema
            .iter()
            .any(|(name, _)| name == "movies_search_insert")
    );

    // A database with other data, written to.
    seed_demo(&Database::Sqlite(used.clone()), size, 99).await;
    Client::opening(&Database::Sqlite(used.clone()), used_guard.clone())
        .await
        .review_the_first_movie(5)
        .await;
    let mut stages = Vec::new();
    movie_reviews_mcp::commands::seed_database(
        &Database::Sqlite(used.clone()),
        size,
        5,
        &mut |stage, done, total| stages.push((stage, done, total)),
    )
    .await
    .unwrap();
    assert_eq!(stages.last().map(|stage| stage.0), Some("search indexes"));
    assert!(stages.contains(&("reviews", 300, 300)), "{stages:?}");
    assert_eq!(schema(used.clone()).await, fresh_schema);
}

-- The whole schema of the SQLite store, in one file, organised by the rule each part keeps.
--
-- Rule 1 is the writer's to keep; rules 2 to 8 hold whoever writes, the server or a person
-- with the sqlite3 shell, because triggers keep them in the same transaction as the write:
--
--   1. Every movie and author has a folded (Unicode lowercase) copy of its title or names,
--      written with them (SQLite's lower() folds ASCII only), that search and order use.
--   2. A movie's and an author's review count and star total are those of its reviews.
--   3. `totals` holds the number of movies, authors and reviews.
--   4. The trigram indexes hold every folded title and "first last" name.
--   5. `totals.catalogue` moves on with every change to a movie's or an author's text.
--   6. `totals.movies_in_order` / `authors_in_order` are set only while rowids follow search order.
--   7. A movie's rank follows title order and an author's name order (equal keys share one).
--   8. A review carries its movie's rank and title and its author's rank and names.
--
-- A load (server/src/store/sqlite/load.rs) drops the indexes and triggers, inserts rows with what the
-- triggers would have written (server/src/store/sqlite/rank.rs), and creates them again from the text
-- SQLite keeps of them, so this file stays the one place they are written.

-- Movies and authors. Rule 1: the folded columns. Search order is an index's order.

CREATE TABLE movies (
    id BLOB NOT NULL PRIMARY KEY,
    title TEXT NOT NULL,
    title_folded TEXT NOT NULL,
    -- Rule 2.
    review_count INTEGER NOT NULL DEFAULT 0,
    star_total INTEGER NOT NULL DEFAULT 0,
    -- Rule 7.
    title_rank INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE authors (
    id BLOB NOT NULL PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    first_name_folded TEXT NOT NULL,
    last_name_folded TEXT NOT NULL,
    -- "first last", folded: a query matches an author when it is inside this.
    full_name_folded TEXT NOT NULL,
    -- Rule 2.
    review_count INTEGER NOT NULL DEFAULT 0,
    star_total INTEGER NOT NULL DEFAULT 0,
    -- Rule 7.
    name_rank INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX movies_by_title ON movies (title_folded, title, id);

CREATE INDEX authors_by_name
    ON authors (last_name_folded, last_name, first_name_folded, first_name, id);

-- A movie or an author inserted again with an id in use would replace the row (INSERT OR
-- REPLACE), and its reviews' counts and copies with it: refused.

CREATE TRIGGER movies_kept_on_insert BEFORE INSERT ON movies
    WHEN EXISTS (SELECT 1 FROM movies WHERE id = NEW.id)
BEGIN
    SELECT RAISE(ABORT, 'a movie with this id exists: change it with UPDATE');
END;

CREATE TRIGGER authors_kept_on_insert BEFORE INSERT ON authors
    WHEN EXISTS (SELECT 1 FROM authors WHERE id = NEW.id)
BEGIN
    SELECT RAISE(ABORT, 'an author with this id exists: change it with UPDATE');
END;

-- Reviews, stored in review order itself: the key (movie rank, author rank, id) is the order
-- of every list of reviews, so all reviews and a movie's reviews (those with its title's rank)
-- are ranges of the table, and a load appends them. Rule 8: the copies, so that a review reads
-- without a join.

CREATE TABLE reviews (
    movie_rank INTEGER NOT NULL DEFAULT 0,
    author_rank INTEGER NOT NULL DEFAULT 0,
    id BLOB NOT NULL,
    movie_id BLOB NOT NULL REFERENCES movies (id),
    author_id BLOB NOT NULL REFERENCES authors (id),
    stars INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    movie_title TEXT NOT NULL DEFAULT '',
    author_first_name TEXT NOT NULL DEFAULT '',
    author_last_name TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (movie_rank, author_rank, id)
) STRICT, WITHOUT ROWID;

CREATE UNIQUE INDEX reviews_by_id ON reviews (id);

-- An author's reviews in review order, the whole review in the index.
CREATE INDEX reviews_by_author_in_order ON reviews (
    author_id, movie_rank, author_rank, id, movie_id, stars, movie_title, author_first_name,
    author_last_name
);

-- Rule 3: the totals, read instead of counted. One row; `catalogue` starts at a random
-- version, so two databases never share one (rule 5).

CREATE TABLE totals (
    id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    movies INTEGER NOT NULL,
    authors INTEGER NOT NULL,
    reviews INTEGER NOT NULL,
    catalogue INTEGER NOT NULL DEFAULT 0,
    movies_in_order INTEGER NOT NULL DEFAULT 0,
    authors_in_order INTEGER NOT NULL DEFAULT 0
) STRICT;

INSERT INTO totals (id, movies, authors, reviews, catalogue) VALUES (1, 0, 0, 0, random());

CREATE TRIGGER movies_totalled_on_insert AFTER INSERT ON movies
BEGIN
    UPDATE totals SET movies = movies + 1;
END;

CREATE TRIGGER movies_totalled_on_delete AFTER DELETE ON movies
BEGIN
    UPDATE totals SET movies = movies - 1;
END;

CREATE TRIGGER authors_totalled_on_insert AFTER INSERT ON authors
BEGIN
    UPDATE totals SET authors = authors + 1;
END;

CREATE TRIGGER authors_totalled_on_delete AFTER DELETE ON authors
BEGIN
    UPDATE totals SET authors = authors - 1;
END;

CREATE TRIGGER reviews_totalled_on_insert AFTER INSERT ON reviews
BEGIN
    UPDATE totals SET reviews = reviews + 1;
END;

CREATE TRIGGER reviews_totalled_on_delete AFTER DELETE ON reviews
BEGIN
    UPDATE totals SET reviews = reviews - 1;
END;

-- Rule 2: counts and star totals follow every review written, changed or deleted.

CREATE TRIGGER reviews_counted_on_insert AFTER INSERT ON reviews
BEGIN
    UPDATE movies SET review_count = review_count + 1, star_total = star_total + NEW.stars
        WHERE id = NEW.movie_id;
    UPDATE authors SET review_count = review_count + 1, star_total = star_total + NEW.stars
        WHERE id = NEW.author_id;
END;

CREATE TRIGGER reviews_counted_on_update AFTER UPDATE OF stars, movie_id, author_id ON reviews
BEGIN
    UPDATE movies SET review_count = review_count - 1, star_total = star_total - OLD.stars
        WHERE id = OLD.movie_id;
    UPDATE movies SET review_count = review_count + 1, star_total = star_total + NEW.stars
        WHERE id = NEW.movie_id;
    UPDATE authors SET review_count = review_count - 1, star_total = star_total - OLD.stars
        WHERE id = OLD.author_id;
    UPDATE authors SET review_count = review_count + 1, star_total = star_total + NEW.stars
        WHERE id = NEW.author_id;
END;

CREATE TRIGGER reviews_counted_on_delete AFTER DELETE ON reviews
BEGIN
    UPDATE movies SET review_count = review_count - 1, star_total = star_total - OLD.stars
        WHERE id = OLD.movie_id;
    UPDATE authors SET review_count = review_count - 1, star_total = star_total - OLD.stars
        WHERE id = OLD.author_id;
END;

-- Rule 4: substring search without a scan. Trigram indexes over the folded texts, which are
-- already lowercase, so they compare exactly (case_sensitive 1); a search term is matched as
-- an FTS5 phrase of its folded form (server/src/store/sqlite/search.rs). A term shorter than three
-- characters cannot use a trigram index and is found by walking every row.

CREATE VIRTUAL TABLE movies_search USING fts5(
    title_folded, content = 'movies', content_rowid = 'rowid',
    tokenize = 'trigram case_sensitive 1'
);

CREATE VIRTUAL TABLE authors_search USING fts5(
    full_name_folded, content = 'authors', content_rowid = 'rowid',
    tokenize = 'trigram case_sensitive 1'
);

CREATE TRIGGER movies_search_insert AFTER INSERT ON movies
BEGIN
    INSERT INTO movies_search (rowid, title_folded) VALUES (NEW.rowid, NEW.title_folded);
END;

CREATE TRIGGER movies_search_update AFTER UPDATE OF title_folded ON movies
BEGIN
    INSERT INTO movies_search (movies_search, rowid, title_folded)
        VALUES ('delete', OLD.rowid, OLD.title_folded);
    INSERT INTO movies_search (rowid, title_folded) VALUES (NEW.rowid, NEW.title_folded);
END;

CREATE TRIGGER movies_search_delete AFTER DELETE ON movies
BEGIN
    INSERT INTO movies_search (movies_search, rowid, title_folded)
        VALUES ('delete', OLD.rowid, OLD.title_folded);
END;

CREATE TRIGGER authors_search_insert AFTER INSERT ON authors
BEGIN
    INSERT INTO authors_search (rowid, full_name_folded)
        VALUES (NEW.rowid, NEW.full_name_folded);
END;

CREATE TRIGGER authors_search_update AFTER UPDATE OF full_name_folded ON authors
BEGIN
    INSERT INTO authors_search (authors_search, rowid, full_name_folded)
        VALUES ('delete', OLD.rowid, OLD.full_name_folded);
    INSERT INTO authors_search (rowid, full_name_folded)
        VALUES (NEW.rowid, NEW.full_name_folded);
END;

CREATE TRIGGER authors_search_delete AFTER DELETE ON authors
BEGIN
    INSERT INTO authors_search (authors_search, rowid, full_name_folded)
        VALUES ('delete', OLD.rowid, OLD.full_name_folded);
END;

-- Rule 5: which version of the titles and names the database holds, so that a server may keep
-- what it worked out about them (how many contain a term) while it reads the same version.

CREATE TRIGGER movies_catalogued_on_insert AFTER INSERT ON movies
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;

CREATE TRIGGER movies_catalogued_on_update AFTER UPDATE OF title, title_folded ON movies
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;

CREATE TRIGGER movies_catalogued_on_delete AFTER DELETE ON movies
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;

CREATE TRIGGER authors_catalogued_on_insert AFTER INSERT ON authors
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;

CREATE TRIGGER authors_catalogued_on_update AFTER UPDATE OF
    first_name, last_name, first_name_folded, last_name_folded, full_name_folded ON authors
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;

CREATE TRIGGER authors_catalogued_on_delete AFTER DELETE ON authors
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
END;

-- Rule 6: a load inserts movies and authors in search order and sets the flags; while one is
-- set, the trigram index, which yields matches in rowid order, yields them in search order, and
-- a page is read without sorting. Any insert, or change of an order key or a rowid, clears it (a
-- delete keeps the order).

CREATE TRIGGER movies_out_of_order_on_insert AFTER INSERT ON movies
BEGIN
    UPDATE totals SET movies_in_order = 0;
END;

CREATE TRIGGER movies_out_of_order_on_update AFTER UPDATE ON movies
    WHEN NEW.rowid <> OLD.rowid OR NEW.id IS NOT OLD.id OR NEW.title IS NOT OLD.title
        OR NEW.title_folded IS NOT OLD.title_folded
BEGIN
    UPDATE totals SET movies_in_order = 0;
END;

CREATE TRIGGER authors_out_of_order_on_insert AFTER INSERT ON authors
BEGIN
    UPDATE totals SET authors_in_order = 0;
END;

CREATE TRIGGER authors_out_of_order_on_update AFTER UPDATE ON authors
    WHEN NEW.rowid <> OLD.rowid OR NEW.id IS NOT OLD.id
        OR NEW.first_name IS NOT OLD.first_name OR NEW.last_name IS NOT OLD.last_name
        OR NEW.first_name_folded IS NOT OLD.first_name_folded
        OR NEW.last_name_folded IS NOT OLD.last_name_folded
BEGIN
    UPDATE totals SET authors_in_order = 0;
END;

-- Rule 7: ranks. A load numbers them in steps of 2^32. A movie or an author added or renamed
-- by hand takes the rank of an equal title or name, or one halfway between its neighbours';
-- when no number is left between them (after at least 32 into one gap) the rank is set to 0,
-- and the table is numbered afresh.

CREATE TRIGGER movies_ranked_on_insert AFTER INSERT ON movies
BEGIN
    UPDATE movies SET title_rank = (
        SELECT coalesce(same, CASE WHEN above - below >= 2 THEN below + (above - below) / 2
                                   ELSE 0 END)
        FROM (SELECT same, below, coalesce(above, below + (1 << 33)) AS above
              FROM (SELECT
                  (SELECT title_rank FROM movies
                   WHERE title_folded = NEW.title_folded AND title = NEW.title
                     AND rowid <> NEW.rowid) AS same,
                  coalesce((SELECT title_rank FROM movies
                            WHERE (title_folded, title) < (NEW.title_folded, NEW.title)
                            ORDER BY title_folded DESC, title DESC LIMIT 1), 0) AS below,
                  (SELECT title_rank FROM movies
                   WHERE (title_folded, title) > (NEW.title_folded, NEW.title)
                   ORDER BY title_folded, title LIMIT 1) AS above)))
        WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER movies_ranked_on_update AFTER UPDATE OF title, title_folded ON movies
    WHEN NEW.title IS NOT OLD.title OR NEW.title_folded IS NOT OLD.title_folded
BEGIN
    UPDATE movies SET title_rank = (
        SELECT coalesce(same, CASE WHEN above - below >= 2 THEN below + (above - below) / 2
                                   ELSE 0 END)
        FROM (SELECT same, below, coalesce(above, below + (1 << 33)) AS above
              FROM (SELECT
                  (SELECT title_rank FROM movies
                   WHERE title_folded = NEW.title_folded AND title = NEW.title
                     AND rowid <> NEW.rowid) AS same,
                  coalesce((SELECT title_rank FROM movies
                            WHERE (title_folded, title) < (NEW.title_folded, NEW.title)
                            ORDER BY title_folded DESC, title DESC LIMIT 1), 0) AS below,
                  (SELECT title_rank FROM movies
                   WHERE (title_folded, title) > (NEW.title_folded, NEW.title)
                   ORDER BY title_folded, title LIMIT 1) AS above)))
        WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER movies_ranked_afresh AFTER UPDATE OF title_rank ON movies
    WHEN NEW.title_rank = 0
BEGIN
    UPDATE movies SET title_rank = ranked.rank << 32
        FROM (SELECT rowid AS row, dense_rank() OVER (ORDER BY title_folded, title) AS rank
              FROM movies) AS ranked
        WHERE movies.rowid = ranked.row AND movies.title_rank <> ranked.rank << 32;
END;

CREATE TRIGGER authors_ranked_on_insert AFTER INSERT ON authors
BEGIN
    UPDATE authors SET name_rank = (
        SELECT coalesce(same, CASE WHEN above - below >= 2 THEN below + (above - below) / 2
                                   ELSE 0 END)
        FROM (SELECT same, below, coalesce(above, below + (1 << 33)) AS above
              FROM (SELECT
                  (SELECT name_rank FROM authors
                   WHERE last_name_folded = NEW.last_name_folded AND last_name = NEW.last_name
                     AND first_name_folded = NEW.first_name_folded
                     AND first_name = NEW.first_name AND rowid <> NEW.rowid) AS same,
                  coalesce((SELECT name_rank FROM authors
                            WHERE (last_name_folded, last_name, first_name_folded, first_name)
                                < (NEW.last_name_folded, NEW.last_name,
                                   NEW.first_name_folded, NEW.first_name)
                            ORDER BY last_name_folded DESC, last_name DESC,
                                     first_name_folded DESC, first_name DESC
                            LIMIT 1), 0) AS below,
                  (SELECT name_rank FROM authors
                   WHERE (last_name_folded, last_name, first_name_folded, first_name)
                       > (NEW.last_name_folded, NEW.last_name,
                          NEW.first_name_folded, NEW.first_name)
                   ORDER BY last_name_folded, last_name, first_name_folded, first_name
                   LIMIT 1) AS above)))
        WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER authors_ranked_on_update AFTER UPDATE OF
    last_name_folded, last_name, first_name_folded, first_name ON authors
    WHEN NEW.last_name_folded IS NOT OLD.last_name_folded
        OR NEW.last_name IS NOT OLD.last_name
        OR NEW.first_name_folded IS NOT OLD.first_name_folded
        OR NEW.first_name IS NOT OLD.first_name
BEGIN
    UPDATE authors SET name_rank = (
        SELECT coalesce(same, CASE WHEN above - below >= 2 THEN below + (above - below) / 2
                                   ELSE 0 END)
        FROM (SELECT same, below, coalesce(above, below + (1 << 33)) AS above
              FROM (SELECT
                  (SELECT name_rank FROM authors
                   WHERE last_name_folded = NEW.last_name_folded AND last_name = NEW.last_name
                     AND first_name_folded = NEW.first_name_folded
                     AND first_name = NEW.first_name AND rowid <> NEW.rowid) AS same,
                  coalesce((SELECT name_rank FROM authors
                            WHERE (last_name_folded, last_name, first_name_folded, first_name)
                                < (NEW.last_name_folded, NEW.last_name,
                                   NEW.first_name_folded, NEW.first_name)
                            ORDER BY last_name_folded DESC, last_name DESC,
                                     first_name_folded DESC, first_name DESC
                            LIMIT 1), 0) AS below,
                  (SELECT name_rank FROM authors
                   WHERE (last_name_folded, last_name, first_name_folded, first_name)
                       > (NEW.last_name_folded, NEW.last_name,
                          NEW.first_name_folded, NEW.first_name)
                   ORDER BY last_name_folded, last_name, first_name_folded, first_name
                   LIMIT 1) AS above)))
        WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER authors_ranked_afresh AFTER UPDATE OF name_rank ON authors
    WHEN NEW.name_rank = 0
BEGIN
    UPDATE authors SET name_rank = ranked.rank << 32
        FROM (SELECT rowid AS row,
                     dense_rank() OVER (ORDER BY last_name_folded, last_name,
                                                 first_name_folded, first_name) AS rank
              FROM authors) AS ranked
        WHERE authors.rowid = ranked.row AND authors.name_rank <> ranked.rank << 32;
END;

-- Rule 8: a review's copies follow its movie and its author, whoever writes either.

CREATE TRIGGER movies_copied_to_reviews AFTER UPDATE OF title, title_rank ON movies
    WHEN NEW.title IS NOT OLD.title OR NEW.title_rank IS NOT OLD.title_rank
BEGIN
    UPDATE reviews SET (movie_rank, movie_title) =
            (SELECT title_rank, title FROM movies WHERE rowid = NEW.rowid)
        WHERE movie_rank = OLD.title_rank AND movie_id = NEW.id;
END;

CREATE TRIGGER authors_copied_to_reviews AFTER UPDATE OF
    first_name, last_name, name_rank ON authors
    WHEN NEW.first_name IS NOT OLD.first_name OR NEW.last_name IS NOT OLD.last_name
        OR NEW.name_rank IS NOT OLD.name_rank
BEGIN
    UPDATE reviews SET (author_rank, author_first_name, author_last_name) =
            (SELECT name_rank, first_name, last_name FROM authors WHERE rowid = NEW.rowid)
        WHERE author_id = NEW.id AND author_rank = OLD.name_rank;
END;

CREATE TRIGGER reviews_copied_on_insert AFTER INSERT ON reviews
    WHEN NOT EXISTS (SELECT 1 FROM movies m, authors a
                     WHERE m.id = NEW.movie_id AND a.id = NEW.author_id
                       AND m.title_rank = NEW.movie_rank AND m.title = NEW.movie_title
                       AND a.name_rank = NEW.author_rank
                       AND a.first_name = NEW.author_first_name
                       AND a.last_name = NEW.author_last_name)
BEGIN
    UPDATE reviews
        SET (movie_rank, movie_title) =
                (SELECT title_rank, title FROM movies WHERE id = NEW.movie_id),
            (author_rank, author_first_name, author_last_name) =
                (SELECT name_rank, first_name, last_name FROM authors WHERE id = NEW.author_id)
        WHERE id = NEW.id;
END;

CREATE TRIGGER reviews_copied_on_update AFTER UPDATE OF
    movie_rank, author_rank, movie_id, author_id, movie_title, author_first_name,
    author_last_name ON reviews
    WHEN NOT EXISTS (SELECT 1 FROM movies m, authors a
                     WHERE m.id = NEW.movie_id AND a.id = NEW.author_id
                       AND m.title_rank = NEW.movie_rank AND m.title = NEW.movie_title
                       AND a.name_rank = NEW.author_rank
                       AND a.first_name = NEW.author_first_name
                       AND a.last_name = NEW.author_last_name)
BEGIN
    UPDATE reviews
        SET (movie_rank, movie_title) =
                (SELECT title_rank, title FROM movies WHERE id = NEW.movie_id),
            (author_rank, author_first_name, author_last_name) =
                (SELECT name_rank, first_name, last_name FROM authors WHERE id = NEW.author_id)
        WHERE id = NEW.id;
END;

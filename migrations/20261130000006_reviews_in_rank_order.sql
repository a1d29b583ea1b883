-- Reviews kept in review order by number, not by copied text. Each movie gets a rank that
-- follows its title order (ignoring case, then exact; equal titles share a rank) and each author
-- one that follows the name order (last name, then first name, each ignoring case then exact;
-- equal names share a rank). The reviews table is then stored in review order itself: its key
-- is (movie rank, author rank, id), so an unfiltered page and a movie's reviews (the reviews with
-- its title's rank) are ranges of the table, which a load fills by appending, and only two
-- indexes are left to build: one by id, and one for an author's reviews.
--
-- Why: three review-order indexes held copied titles and names twice over (exact and folded):
-- five million wide rows sorted three ways on the huge data set, most of its load (see
-- server/src/store/load.rs).
--
-- Migrating rewrites every review: about 3 minutes for five million here.
--
-- Ranks are multiples of 2^32 after a load or this migration. A movie or an author added or
-- renamed outside a load takes the rank of an equal title or name, or one halfway between its
-- neighbours'; when no number is left between them (after at least 32 titles added into one
-- gap), every rank of that table is numbered afresh, which rewrites every review after the
-- gap: 13 s on half a million reviews here, in one write transaction. The triggers below keep each
-- review's ranks, title and names equal to its movie's and its author's, whatever a writer
-- gives them.

ALTER TABLE movies ADD COLUMN title_rank INTEGER NOT NULL DEFAULT 0;
ALTER TABLE authors ADD COLUMN name_rank INTEGER NOT NULL DEFAULT 0;

UPDATE movies SET title_rank = ranked.rank << 32
    FROM (SELECT rowid AS row, dense_rank() OVER (ORDER BY title_folded, title) AS rank
          FROM movies) AS ranked
    WHERE movies.rowid = ranked.row;
UPDATE authors SET name_rank = ranked.rank << 32
    FROM (SELECT rowid AS row,
                 dense_rank() OVER (ORDER BY last_name_folded, last_name,
                                             first_name_folded, first_name) AS rank
          FROM authors) AS ranked
    WHERE authors.rowid = ranked.row;

CREATE TABLE reviews_in_rank_order (
    -- Copied from the movie and the author (see the triggers): the review order.
    movie_rank INTEGER NOT NULL DEFAULT 0,
    author_rank INTEGER NOT NULL DEFAULT 0,
    id BLOB NOT NULL,
    movie_id BLOB NOT NULL REFERENCES movies (id),
    author_id BLOB NOT NULL REFERENCES authors (id),
    stars INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    -- Also copied, so that a review reads without a join.
    movie_title TEXT NOT NULL DEFAULT '',
    author_first_name TEXT NOT NULL DEFAULT '',
    author_last_name TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (movie_rank, author_rank, id)
) STRICT, WITHOUT ROWID;

-- A review whose movie or author is gone (deleted by hand with foreign keys off) has no place in
-- the order and cannot be kept with foreign keys on: it is left behind, and the counts and
-- totals are worked out again below from the reviews kept.
INSERT INTO reviews_in_rank_order
    SELECT m.title_rank, a.name_rank, r.id, r.movie_id, r.author_id, r.stars,
           m.title, a.first_name, a.last_name
    FROM reviews r JOIN movies m ON m.id = r.movie_id JOIN authors a ON a.id = r.author_id;

-- Its indexes and its triggers go with it.
DROP TABLE reviews;
ALTER TABLE reviews_in_rank_order RENAME TO reviews;

CREATE UNIQUE INDEX reviews_by_id ON reviews (id);
-- An author's reviews in review order (the author's rank is the same for all of them), with the
-- rest of each review, so that they are read from the index alone: on the huge data set, ten
-- reviews in 9 µs instead of 43 µs from the table, where they lie far apart.
CREATE INDEX reviews_by_author_in_order ON reviews (
    author_id, movie_rank, author_rank, id, movie_id, stars, movie_title, author_first_name,
    author_last_name
);

UPDATE movies SET (review_count, star_total) =
    (SELECT count(*), coalesce(sum(stars), 0) FROM reviews
     WHERE movie_rank = movies.title_rank AND movie_id = movies.id);
UPDATE authors SET (review_count, star_total) =
    (SELECT count(*), coalesce(sum(stars), 0) FROM reviews WHERE author_id = authors.id);
UPDATE totals SET reviews = (SELECT count(*) FROM reviews);

-- As before, counts and totals kept in the same transaction as every write; a review moved to
-- another movie or author by hand (the tools refuse it) moves its count too.
CREATE TRIGGER reviews_counted_on_insert AFTER INSERT ON reviews
BEGIN
    UPDATE movies SET review_count = review_count + 1, star_total = star_total + NEW.stars
        WHERE id = NEW.movie_id;
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
CREATE TRIGGER reviews_totalled_on_insert AFTER INSERT ON reviews
BEGIN
    UPDATE totals SET reviews = reviews + 1;
END;
CREATE TRIGGER reviews_totalled_on_delete AFTER DELETE ON reviews
BEGIN
    UPDATE totals SET reviews = reviews - 1;
END;

-- A review written with other ranks, title or names than its movie's and its author's (by hand,
-- say, leaving them to their defaults) is given theirs.
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

-- A movie or an author is added with an id of its own: `INSERT OR REPLACE` of an existing one
-- would give it a new rank and counts behind its reviews' backs. Change one with UPDATE.
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

-- A movie added or retitled outside a load: the rank of a movie with the same title, else the
-- middle of the gap between its neighbours' ranks (a gap of 2^33 past the last), else 0, which
-- the trigger after these answers by ranking every movie afresh.
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
-- A movie's reviews follow its rank and its title, as they are when this runs (a rank set to 0
-- is ranked afresh by a trigger that may run before or after this one).
CREATE TRIGGER movies_copied_to_reviews AFTER UPDATE OF title, title_rank ON movies
    WHEN NEW.title IS NOT OLD.title OR NEW.title_rank IS NOT OLD.title_rank
BEGIN
    UPDATE reviews SET (movie_rank, movie_title) =
            (SELECT title_rank, title FROM movies WHERE rowid = NEW.rowid)
        WHERE movie_rank = OLD.title_rank AND movie_id = NEW.id;
END;

-- The same for authors, by name.
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
CREATE TRIGGER authors_copied_to_reviews AFTER UPDATE OF
    first_name, last_name, name_rank ON authors
    WHEN NEW.first_name IS NOT OLD.first_name OR NEW.last_name IS NOT OLD.last_name
        OR NEW.name_rank IS NOT OLD.name_rank
BEGIN
    UPDATE reviews SET (author_rank, author_first_name, author_last_name) =
            (SELECT name_rank, first_name, last_name FROM authors WHERE rowid = NEW.rowid)
        WHERE author_id = NEW.id AND author_rank = OLD.name_rank;
END;

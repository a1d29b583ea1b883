-- Movies, authors and reviews. Ids are UUIDs stored as their 16 bytes, which sort in the same
-- order as their lowercase hyphenated text. Every text a tool searches or orders "ignoring
-- case" has a `_folded` twin holding its Unicode lowercase form, computed by the server
-- (SQLite's lower() folds ASCII only).

CREATE TABLE movies (
    id BLOB NOT NULL PRIMARY KEY,
    title TEXT NOT NULL,
    title_folded TEXT NOT NULL,
    -- Kept by the triggers below, so a page of movies never aggregates reviews.
    review_count INTEGER NOT NULL DEFAULT 0,
    star_total INTEGER NOT NULL DEFAULT 0
) STRICT;

-- movies_search's order: title ignoring case, then the exact title, then id.
CREATE INDEX movies_by_title ON movies (title_folded, title, id);

CREATE TABLE authors (
    id BLOB NOT NULL PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    first_name_folded TEXT NOT NULL,
    last_name_folded TEXT NOT NULL,
    -- "first last", lowercase: a query matches an author when it is inside this.
    full_name_folded TEXT NOT NULL,
    review_count INTEGER NOT NULL DEFAULT 0,
    star_total INTEGER NOT NULL DEFAULT 0
) STRICT;

-- authors_search's order: last name, then first name (each ignoring case, then exact), then id.
CREATE INDEX authors_by_name
    ON authors (last_name_folded, last_name, first_name_folded, first_name, id);

CREATE TABLE reviews (
    id BLOB NOT NULL PRIMARY KEY,
    movie_id BLOB NOT NULL REFERENCES movies (id),
    author_id BLOB NOT NULL REFERENCES authors (id),
    stars INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    -- The keys of the review order, copied from the movie and the author when the review is
    -- written (titles and names never change once written), so that one index serves each
    -- list of reviews in order, and a review reads without a join.
    movie_title_folded TEXT NOT NULL,
    movie_title TEXT NOT NULL,
    author_last_name_folded TEXT NOT NULL,
    author_last_name TEXT NOT NULL,
    author_first_name_folded TEXT NOT NULL,
    author_first_name TEXT NOT NULL
) STRICT;

-- reviews_list's order: movie title, then author last name, then first name (each ignoring
-- case, then exact), then id; alone, within one movie, and within one author.
CREATE INDEX reviews_in_order ON reviews (
    movie_title_folded, movie_title, author_last_name_folded, author_last_name,
    author_first_name_folded, author_first_name, id
);
CREATE INDEX reviews_of_movie_in_order ON reviews (
    movie_id, movie_title_folded, movie_title, author_last_name_folded, author_last_name,
    author_first_name_folded, author_first_name, id
);
CREATE INDEX reviews_by_author_in_order ON reviews (
    author_id, movie_title_folded, movie_title, author_last_name_folded, author_last_name,
    author_first_name_folded, author_first_name, id
);

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

-- A review's movie and author never change (the tools refuse it); its stars may.
CREATE TRIGGER reviews_counted_on_update AFTER UPDATE OF stars ON reviews
BEGIN
    UPDATE movies SET star_total = star_total - OLD.stars + NEW.stars WHERE id = NEW.movie_id;
    UPDATE authors SET star_total = star_total - OLD.stars + NEW.stars WHERE id = NEW.author_id;
END;

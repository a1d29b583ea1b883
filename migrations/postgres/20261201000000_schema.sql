-- The whole schema of the PostgreSQL store, in one file, organised by the rule each part keeps.
--
-- Rule 1 is the writer's to keep; rules 2 to 5 hold whoever writes, the server, another replica
-- or a person with psql, because triggers keep them in the same transaction as the write:
--
--   1. Every movie and author has a folded (Unicode lowercase, letter by letter) copy of its
--      title or names, written with them and worked out by the server, never by the database
--      (lower() and ILIKE follow the collation and the C library, and differ between
--      versions), that search and order use.
--   2. A movie's and an author's review count and star total are those of its reviews.
--   3. `totals` holds the number of movies, authors and reviews.
--   4. A review carries its movie's title and its author's names, folded and as written, so
--      that every list of reviews is read in order from one index, without a join.
--   5. Every text compares by its bytes (COLLATE "C"), whatever the database's locale, so the
--      orders are those of the SQLite store.
--   6. `totals.catalogue` moves on with every change to the movies' or authors' texts, so that
--      a server may keep what it worked out about them (how many contain a term) while the
--      version it read stays the same.
--
-- A load (server/src/store/postgres/load.rs) writes the counts, totals and copies itself and
-- sets `movie_reviews.loading` for its transaction, which the triggers of rules 2 to 4 obey.

-- Rule 1 and 5: substring search through trigram indexes on the folded texts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE movies (
    id uuid PRIMARY KEY,
    title text COLLATE "C" NOT NULL,
    title_folded text COLLATE "C" NOT NULL,
    review_count bigint NOT NULL DEFAULT 0,
    star_total bigint NOT NULL DEFAULT 0
-- Room on each page for the new versions of its rows that every review written makes (a count
-- and a total change): the row stays on its page, in its place in the order a load wrote, and
-- no index changes.
) WITH (fillfactor = 90);

-- Title order: folded, then exact, then id.
CREATE INDEX movies_in_order ON movies (title_folded, title, id);
CREATE INDEX movies_search ON movies USING gin (title_folded gin_trgm_ops);

CREATE TABLE authors (
    id uuid PRIMARY KEY,
    first_name text COLLATE "C" NOT NULL,
    last_name text COLLATE "C" NOT NULL,
    first_name_folded text COLLATE "C" NOT NULL,
    last_name_folded text COLLATE "C" NOT NULL,
    -- "first last": a substring of either name is one of it, so one index serves all three.
    name_folded text COLLATE "C" GENERATED ALWAYS AS (first_name_folded || ' ' || last_name_folded) STORED,
    review_count bigint NOT NULL DEFAULT 0,
    star_total bigint NOT NULL DEFAULT 0
-- As movies.
) WITH (fillfactor = 90);

-- Name order: last name, then first name (each folded, then exact), then id.
CREATE INDEX authors_in_order ON authors (last_name_folded, last_name, first_name_folded, first_name, id);
CREATE INDEX authors_search ON authors USING gin (name_folded gin_trgm_ops);

-- Rule 4: the copies.
CREATE TABLE reviews (
    id uuid PRIMARY KEY,
    movie_id uuid NOT NULL REFERENCES movies (id),
    author_id uuid NOT NULL REFERENCES authors (id),
    stars smallint NOT NULL CHECK (stars BETWEEN 1 AND 5),
    movie_title text COLLATE "C" NOT NULL,
    movie_title_folded text COLLATE "C" NOT NULL,
    author_first_name text COLLATE "C" NOT NULL,
    author_last_name text COLLATE "C" NOT NULL,
    author_first_name_folded text COLLATE "C" NOT NULL,
    author_last_name_folded text COLLATE "C" NOT NULL
);

-- Review order: the movie's title, then the author's names, then the review's id. A movie's
-- reviews share its title, and an author's their names, so each filter has its own index in
-- the order that remains.
CREATE INDEX reviews_in_order ON reviews (
    movie_title_folded, movie_title, author_last_name_folded, author_last_name,
    author_first_name_folded, author_first_name, id);
CREATE INDEX reviews_of_movie ON reviews (
    movie_id, author_last_name_folded, author_last_name, author_first_name_folded,
    author_first_name, id);
CREATE INDEX reviews_of_author ON reviews (author_id, movie_title_folded, movie_title, id);

-- Rule 3: the totals, read instead of counted. One row.
CREATE TABLE totals (
    id integer PRIMARY KEY CHECK (id = 1),
    movies bigint NOT NULL,
    authors bigint NOT NULL,
    reviews bigint NOT NULL,
    catalogue bigint NOT NULL
);
INSERT INTO totals (id, movies, authors, reviews, catalogue) VALUES (1, 0, 0, 0, 0);

-- Whether the transaction is a load, which writes counts, totals and copies itself.
CREATE FUNCTION loading() RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT coalesce(current_setting('movie_reviews.loading', true), '') = 'on'
$$;

-- Rule 4: a review written takes its copies from its movie and its author.
CREATE FUNCTION review_copies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF loading() THEN
        RETURN NEW;
    END IF;
    SELECT title, title_folded INTO NEW.movie_title, NEW.movie_title_folded
        FROM movies WHERE id = NEW.movie_id;
    SELECT first_name, last_name, first_name_folded, last_name_folded
        INTO NEW.author_first_name, NEW.author_last_name, NEW.author_first_name_folded,
             NEW.author_last_name_folded
        FROM authors WHERE id = NEW.author_id;
    RETURN NEW;
END
$$;

CREATE TRIGGER reviews_copied BEFORE INSERT OR UPDATE OF movie_id, author_id ON reviews
    FOR EACH ROW EXECUTE FUNCTION review_copies();

-- Rule 4: the copies follow a movie's title and an author's names.
CREATE FUNCTION movie_copies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reviews SET movie_title = NEW.title, movie_title_folded = NEW.title_folded
        WHERE movie_id = NEW.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER movies_copied AFTER UPDATE OF title, title_folded ON movies
    FOR EACH ROW WHEN (NOT loading()) EXECUTE FUNCTION movie_copies();

CREATE FUNCTION author_copies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE reviews SET author_first_name = NEW.first_name, author_last_name = NEW.last_name,
                       author_first_name_folded = NEW.first_name_folded,
                       author_last_name_folded = NEW.last_name_folded
        WHERE author_id = NEW.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER authors_copied AFTER UPDATE OF first_name, last_name, first_name_folded,
    last_name_folded ON authors
    FOR EACH ROW WHEN (NOT loading()) EXECUTE FUNCTION author_copies();

-- Rules 2 and 3: counts and star totals follow every review written, changed or deleted. The
-- movie's row, then the author's, then the totals: every write locks them in this order, so
-- concurrent writes wait for each other rather than deadlock.
CREATE FUNCTION review_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE movies SET review_count = review_count - 1, star_total = star_total - OLD.stars
            WHERE id = OLD.movie_id;
        UPDATE authors SET review_count = review_count - 1, star_total = star_total - OLD.stars
            WHERE id = OLD.author_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE movies SET review_count = review_count + 1, star_total = star_total + NEW.stars
            WHERE id = NEW.movie_id;
        UPDATE authors SET review_count = review_count + 1, star_total = star_total + NEW.stars
            WHERE id = NEW.author_id;
    END IF;
    IF TG_OP = 'INSERT' THEN
        UPDATE totals SET reviews = reviews + 1;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE totals SET reviews = reviews - 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER reviews_counted AFTER INSERT OR DELETE OR UPDATE OF stars, movie_id, author_id
    ON reviews FOR EACH ROW WHEN (NOT loading()) EXECUTE FUNCTION review_counts();

CREATE FUNCTION row_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'movies' THEN
        UPDATE totals SET movies = movies + CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
    ELSE
        UPDATE totals SET authors = authors + CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER movies_counted AFTER INSERT OR DELETE ON movies
    FOR EACH ROW WHEN (NOT loading()) EXECUTE FUNCTION row_totals();
CREATE TRIGGER authors_counted AFTER INSERT OR DELETE ON authors
    FOR EACH ROW WHEN (NOT loading()) EXECUTE FUNCTION row_totals();

-- Rule 6: once per statement that adds, removes or changes movies or authors (a load's COPY and
-- TRUNCATE included).
CREATE FUNCTION catalogue_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE totals SET catalogue = catalogue + 1;
    RETURN NULL;
END
$$;

CREATE TRIGGER movies_catalogued AFTER INSERT OR DELETE OR TRUNCATE
    OR UPDATE OF title, title_folded ON movies
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();
CREATE TRIGGER authors_catalogued AFTER INSERT OR DELETE OR TRUNCATE
    OR UPDATE OF first_name, last_name, first_name_folded, last_name_folded ON authors
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed();

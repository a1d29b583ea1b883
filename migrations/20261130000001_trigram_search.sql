-- Substring search without a scan: trigram indexes over the folded title and the folded
-- "first last" name. The folded text is already Unicode lowercase, so the index compares it
-- exactly (case_sensitive 1); with that setting GLOB, not LIKE, is answered from the index.
-- Queries shorter than three characters cannot use a trigram index and keep the plain scan.

CREATE VIRTUAL TABLE movies_search USING fts5(
    title_folded, content = 'movies', content_rowid = 'rowid',
    tokenize = 'trigram case_sensitive 1'
);
INSERT INTO movies_search (rowid, title_folded) SELECT rowid, title_folded FROM movies;

CREATE TRIGGER movies_search_insert AFTER INSERT ON movies
BEGIN
    INSERT INTO movies_search (rowid, title_folded) VALUES (NEW.rowid, NEW.title_folded);
END;
CREATE TRIGGER movies_search_delete AFTER DELETE ON movies
BEGIN
    INSERT INTO movies_search (movies_search, rowid, title_folded)
        VALUES ('delete', OLD.rowid, OLD.title_folded);
END;
CREATE TRIGGER movies_search_update AFTER UPDATE OF title_folded ON movies
BEGIN
    INSERT INTO movies_search (movies_search, rowid, title_folded)
        VALUES ('delete', OLD.rowid, OLD.title_folded);
    INSERT INTO movies_search (rowid, title_folded) VALUES (NEW.rowid, NEW.title_folded);
END;

CREATE VIRTUAL TABLE authors_search USING fts5(
    full_name_folded, content = 'authors', content_rowid = 'rowid',
    tokenize = 'trigram case_sensitive 1'
);
INSERT INTO authors_search (rowid, full_name_folded)
    SELECT rowid, full_name_folded FROM authors;

CREATE TRIGGER authors_search_insert AFTER INSERT ON authors
BEGIN
    INSERT INTO authors_search (rowid, full_name_folded)
        VALUES (NEW.rowid, NEW.full_name_folded);
END;
CREATE TRIGGER authors_search_delete AFTER DELETE ON authors
BEGIN
    INSERT INTO authors_search (authors_search, rowid, full_name_folded)
        VALUES ('delete', OLD.rowid, OLD.full_name_folded);
END;
CREATE TRIGGER authors_search_update AFTER UPDATE OF full_name_folded ON authors
BEGIN
    INSERT INTO authors_search (authors_search, rowid, full_name_folded)
        VALUES ('delete', OLD.rowid, OLD.full_name_folded);
    INSERT INTO authors_search (rowid, full_name_folded)
        VALUES (NEW.rowid, NEW.full_name_folded);
END;

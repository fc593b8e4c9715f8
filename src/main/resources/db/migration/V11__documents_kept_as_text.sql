-- The documents tenants (and the operator) fill are kept as the JSON text Pigeon accepted (json, not jsonb), as
-- message bodies already are. jsonb keeps a number as numeric and writes it out in full: {"a":1e131071}, 14 bytes
-- accepted, came back as 131,072 digits, and a 58 KB document as gigabytes. json keeps the text, so what is read
-- back is what was accepted, byte for byte, and its -> and ->> operators still serve the SQL that reads reserved
-- attributes. Every column stays convertible to jsonb (its CHECK converts it): what jsonb refused before (a \u0000,
-- a number beyond numeric's range) is still refused, and SQL may still cast a document to jsonb.

-- The compact JSON text of a jsonb document with every number whose plain spelling is long written in scientific
-- notation instead (same value), so that existing rows convert without writing their huge numbers out in full.
CREATE FUNCTION pigeon_compact_json(doc jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
    CASE jsonb_typeof(doc)
        WHEN 'object' THEN
            RETURN '{' || COALESCE((SELECT string_agg(to_json(e.key)::text || ':' || pigeon_compact_json(e.value), ','
                                                      ORDER BY e.ord)
                                    FROM jsonb_each(doc) WITH ORDINALITY AS e (key, value, ord)), '') || '}';
        WHEN 'array' THEN
            RETURN '[' || COALESCE((SELECT string_agg(pigeon_compact_json(e.value), ',' ORDER BY e.ord)
                                    FROM jsonb_array_elements(doc) WITH ORDINALITY AS e (value, ord)), '') || ']';
        WHEN 'number' THEN
            RETURN pigeon_compact_number(doc::numeric);
        ELSE
            RETURN doc::text;
    END CASE;
END $$;

-- A number in JSON: as numeric writes it when that is short, else as significant digits and a power of ten.
CREATE FUNCTION pigeon_compact_number(n numeric) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    plain text := n::text;
    unsigned text := ltrim(plain, '-');
    whole text := split_part(unsigned, '.', 1);
    digits text := whole || split_part(unsigned, '.', 2);
    significant text := rtrim(ltrim(digits, '0'), '0');
    leading_zeros int := length(digits) - length(ltrim(digits, '0'));
    scientific text;
BEGIN
    IF length(plain) <= 24 OR significant = '' THEN
        RETURN plain;
    END IF;
    scientific := CASE WHEN n < 0 THEN '-' ELSE '' END || left(significant, 1)
        || CASE WHEN length(significant) > 1 THEN '.' || substr(significant, 2) ELSE '' END
        || 'e' || (length(whole) - leading_zeros - 1)::text;
    RETURN CASE WHEN length(scientific) < length(plain) THEN scientific ELSE plain END;
END $$;

-- Only a document holding a number that numeric writes long takes the slow path.
CREATE FUNCTION pigeon_json_of(doc jsonb) RETURNS json LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT CASE WHEN jsonb_path_exists(doc, 'lax $.** ? (@.type() == "number" && (@ >= 1e20 || @ <= -1e20
                                                        || (@ != 0 && @ < 1e-6 && @ > -1e-6)))')
                THEN pigeon_compact_json(doc)::json
                ELSE doc::text::json END
$$;

ALTER TABLE queues DROP CONSTRAINT queues_metadata_is_object;
ALTER TABLE queues ALTER COLUMN metadata DROP DEFAULT,
    ALTER COLUMN metadata TYPE json USING pigeon_json_of(metadata),
    ALTER COLUMN metadata SET DEFAULT '{}'::json;
ALTER TABLE queues ADD CONSTRAINT queues_metadata_is_object CHECK (jsonb_typeof(metadata::jsonb) = 'object');

ALTER TABLE subscriptions ALTER COLUMN options DROP DEFAULT,
    ALTER COLUMN options TYPE json USING pigeon_json_of(options),
    ALTER COLUMN options SET DEFAULT '{}'::json;
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_options_is_object CHECK (jsonb_typeof(options::jsonb) = 'object');

ALTER TABLE pools DROP CONSTRAINT pools_options_check;
ALTER TABLE pools ALTER COLUMN options DROP DEFAULT,
    ALTER COLUMN options TYPE json USING pigeon_json_of(options),
    ALTER COLUMN options SET DEFAULT '{}'::json;
ALTER TABLE pools ADD CONSTRAINT pools_options_is_object CHECK (jsonb_typeof(options::jsonb) = 'object');

-- Filled by Pigeon from documents it checked (header strings, bounded retry policies), kept as text all the same.
ALTER TABLE dispatch_groups ALTER COLUMN headers TYPE json USING pigeon_json_of(headers),
    ALTER COLUMN retry_policy TYPE json USING pigeon_json_of(retry_policy);

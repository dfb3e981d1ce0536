-- What the Debezium connector of infra/connect/unleash-events.connector.json needs in Unleash's database
-- (docs/debezium.md). The server runs with wal_level = logical (postgresql.conf; a restart), and
-- max_replication_slots / max_wal_senders leave one of each for this connector.
-- Run as Unleash's database owner (the publication is created by the owner of `events`); psql variables:
--   psql -v password="'…'" -v dbname=unleash -f infra/connect/unleash-events.setup.sql

-- 1. a role for Debezium: REPLICATION (a logical replication slot and the walsender), nothing else
CREATE ROLE flaglens_debezium WITH LOGIN REPLICATION PASSWORD :password;
GRANT CONNECT ON DATABASE :dbname TO flaglens_debezium;
GRANT USAGE ON SCHEMA public TO flaglens_debezium;
-- the initial snapshot reads the table; streaming needs no grant beyond the publication
GRANT SELECT ON public.events TO flaglens_debezium;

-- 2. the publication: Unleash's events table only (publication.autocreate.mode = disabled: the connector's
--    role needs no ownership of the table)
CREATE PUBLICATION flaglens_unleash_events FOR TABLE public.events;

-- 3. the row before in each update: Unleash's event announcer sets `announced = true` on every row once it
--    has emitted it; with the row before, flaglens sees that the event itself did not change and skips the
--    update (any other update or delete of an event is dead-lettered with the reason)
ALTER TABLE public.events REPLICA IDENTITY FULL;

-- 4. the slot: created by the connector on its first start (slot.name = flaglens_unleash_events, plugin
--    pgoutput). It retains WAL until the connector confirms it: a connector removed for good must have its
--    slot dropped, or WAL grows without bound:
--      SELECT pg_drop_replication_slot('flaglens_unleash_events');
--    To retain WAL from now on (before the connector first starts), create it here instead:
--      SELECT pg_create_logical_replication_slot('flaglens_unleash_events', 'pgoutput');

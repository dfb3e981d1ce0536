-- The tables the source connector reads, as Unleash 6.10.1 creates them (pg_dump --schema-only of a fresh
-- unleash-server@6.10.1 database, owners, the stats trigger and the foreign keys to other tables left out).
-- Integration tests create a scratch "Unleash" database from it; the conformance run uses the real Unleash.
CREATE TABLE client_applications (
    app_name character varying(255) NOT NULL,
    created_at timestamp with time zone DEFAULT now(),
    updated_at timestamp with time zone DEFAULT now(),
    seen_at timestamp with time zone,
    strategies json,
    description character varying(255),
    icon character varying(255),
    url character varying(255),
    color character varying(255),
    announced boolean DEFAULT false,
    created_by text
);
CREATE TABLE client_applications_usage (
    app_name character varying(255) NOT NULL,
    project character varying(255) NOT NULL,
    environment character varying(100) NOT NULL
);
CREATE TABLE client_instances (
    app_name character varying(255) NOT NULL,
    instance_id character varying(255) NOT NULL,
    client_ip character varying(255),
    last_seen timestamp with time zone DEFAULT now(),
    created_at timestamp with time zone DEFAULT now(),
    sdk_version character varying(255),
    environment character varying(255) DEFAULT 'default'::character varying NOT NULL,
    sdk_type character varying(255)
);
CREATE TABLE client_metrics_env (
    feature_name character varying(255) NOT NULL,
    app_name character varying(255) NOT NULL,
    environment character varying(100) NOT NULL,
    "timestamp" timestamp with time zone NOT NULL,
    yes bigint DEFAULT 0,
    no bigint DEFAULT 0
);
CREATE TABLE client_metrics_env_daily (
    feature_name character varying(255) NOT NULL,
    app_name character varying(255) NOT NULL,
    environment character varying(100) NOT NULL,
    date date NOT NULL,
    yes bigint DEFAULT 0,
    no bigint DEFAULT 0
);
CREATE TABLE client_metrics_env_variants (
    feature_name character varying(255) NOT NULL,
    app_name character varying(255) NOT NULL,
    environment character varying(100) NOT NULL,
    "timestamp" timestamp with time zone NOT NULL,
    variant text NOT NULL,
    count integer DEFAULT 0
);
CREATE TABLE client_metrics_env_variants_daily (
    feature_name character varying(255) NOT NULL,
    app_name character varying(255) NOT NULL,
    environment character varying(100) NOT NULL,
    date date NOT NULL,
    variant text NOT NULL,
    count bigint DEFAULT 0
);
CREATE TABLE events (
    id integer NOT NULL,
    created_at timestamp with time zone DEFAULT now(),
    type character varying(255) NOT NULL,
    created_by character varying(255) NOT NULL,
    data json,
    tags json DEFAULT '[]'::json,
    project text,
    environment text,
    feature_name text,
    pre_data jsonb,
    announced boolean DEFAULT false NOT NULL,
    created_by_user_id integer,
    ip text
);
CREATE SEQUENCE events_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE events_id_seq OWNED BY events.id;
CREATE TABLE last_seen_at_metrics (
    feature_name character varying(255) NOT NULL,
    environment character varying(100) NOT NULL,
    last_seen_at timestamp with time zone NOT NULL
);
CREATE TABLE stat_environment_updates (
    day date NOT NULL,
    environment text NOT NULL,
    updates bigint DEFAULT 0 NOT NULL
);
ALTER TABLE ONLY events ALTER COLUMN id SET DEFAULT nextval('events_id_seq'::regclass);
ALTER TABLE ONLY client_applications
    ADD CONSTRAINT client_applications_pkey PRIMARY KEY (app_name);
ALTER TABLE ONLY client_applications_usage
    ADD CONSTRAINT client_applications_usage_pkey PRIMARY KEY (app_name, project, environment);
ALTER TABLE ONLY client_instances
    ADD CONSTRAINT client_instances_pkey PRIMARY KEY (app_name, environment, instance_id);
ALTER TABLE ONLY client_metrics_env_daily
    ADD CONSTRAINT client_metrics_env_daily_pkey PRIMARY KEY (feature_name, app_name, environment, date);
ALTER TABLE ONLY client_metrics_env
    ADD CONSTRAINT client_metrics_env_pkey PRIMARY KEY (feature_name, app_name, environment, "timestamp");
ALTER TABLE ONLY client_metrics_env_variants_daily
    ADD CONSTRAINT client_metrics_env_variants_daily_pkey PRIMARY KEY (feature_name, app_name, environment, date, variant);
ALTER TABLE ONLY client_metrics_env_variants
    ADD CONSTRAINT client_metrics_env_variants_pkey PRIMARY KEY (feature_name, app_name, environment, "timestamp", variant);
ALTER TABLE ONLY events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);
ALTER TABLE ONLY last_seen_at_metrics
    ADD CONSTRAINT last_seen_at_metrics_pkey PRIMARY KEY (feature_name, environment);
ALTER TABLE ONLY stat_environment_updates
    ADD CONSTRAINT stat_environment_updates_pkey PRIMARY KEY (day, environment);
CREATE INDEX client_instances_environment_idx ON client_instances USING btree (environment);
CREATE INDEX events_created_by_user_id_idx ON events USING btree (created_by_user_id);
CREATE INDEX events_environment_idx ON events USING btree (environment);
CREATE INDEX events_project_idx ON events USING btree (project);
CREATE INDEX events_unannounced_idx ON events USING btree (announced) WHERE (announced = false);
CREATE INDEX feature_name_idx ON events USING btree (feature_name);
CREATE INDEX idx_client_applications_announced_false ON client_applications USING btree (announced) WHERE (announced = false);
CREATE INDEX idx_client_metrics_f_name ON client_metrics_env USING btree (feature_name);
CREATE INDEX idx_events_created_at_desc ON events USING btree (created_at DESC);
CREATE INDEX idx_events_feature_type_id ON events USING btree (id) WHERE ((feature_name IS NOT NULL) OR ((type)::text = ANY ((ARRAY['segment-updated'::character varying, 'feature_import'::character varying, 'features-imported'::character varying])::text[])));
CREATE INDEX idx_events_project_feature_created ON events USING btree (project, feature_name, created_at DESC);
CREATE INDEX idx_events_type ON events USING btree (type);
CREATE INDEX idx_feature_name ON last_seen_at_metrics USING btree (feature_name);
ALTER TABLE ONLY client_applications_usage
    ADD CONSTRAINT client_applications_usage_app_name_fkey FOREIGN KEY (app_name) REFERENCES client_applications(app_name) ON DELETE CASCADE;
ALTER TABLE ONLY client_metrics_env_variants_daily
    ADD CONSTRAINT client_metrics_env_variants_d_feature_name_app_name_enviro_fkey FOREIGN KEY (feature_name, app_name, environment, date) REFERENCES client_metrics_env_daily(feature_name, app_name, environment, date) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE ONLY client_metrics_env_variants
    ADD CONSTRAINT client_metrics_env_variants_feature_name_app_name_environm_fkey FOREIGN KEY (feature_name, app_name, environment, "timestamp") REFERENCES client_metrics_env(feature_name, app_name, environment, "timestamp") ON UPDATE CASCADE ON DELETE CASCADE;

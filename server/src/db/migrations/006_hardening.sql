-- Exact sliding-window rate limits at constant cost (issue 14). Per subject (a terminal
-- id) and bucket ('pickup', 'return', 'courier'), the times of the last limit + 1
-- attempts, refused ones included. An attempt is allowed when at most `limit` of them,
-- itself included, fall inside the window: exactly the spec's sliding window, whatever
-- the flood, in one row of at most limit + 1 timestamps.
create table rate_limit_windows (
  subject text not null,
  bucket text not null,
  attempts timestamptz[] not null,
  -- Brute-force alarm: the minutes (epoch / 60) in which the limit was hit, newest last,
  -- and whether the current episode has raised its alert.
  limited_minutes bigint[] not null default '{}',
  episode_alerted boolean not null default false,
  primary key (subject, bucket)
);
drop table rate_limit_hits;

-- The auth cache remembers unknown token hashes too (so an unknown token costs what a
-- known one does); a terminal created with a hash someone probed must drop that entry.
create function notify_terminal_created() returns trigger language plpgsql as $$
begin
  perform pg_notify('locker_terminal_token', encode(new.token_hash, 'base64'));
  return null;
end $$;
create trigger terminals_notify_insert after insert on terminals
  for each row execute function notify_terminal_created();
create trigger terminals_notify_token after update on terminals
  for each row when (old.token_hash is distinct from new.token_hash)
  execute function notify_terminal_created();

-- An idempotent replay answers the first answer's exact bytes; jsonb would reorder keys.
alter table idempotency_keys add column response_text text;

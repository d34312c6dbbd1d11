-- A pickup code lives in an SMS row only while the row may still be sent. Whatever makes
-- the row final (sent, set aside for a sandbox, cancelled by an undo, given up after its
-- last attempt, refused by the provider), its stored text loses every eight-digit run,
-- by whichever writer: one rule, here. The pattern is redactCodes' (sms/texts.ts):
-- eight ASCII digits not touching another letter, digit or underscore.
create function outbox_redact_codes() returns trigger language plpgsql as $$
begin
  new.payload := jsonb_set(
    new.payload, '{text}',
    to_jsonb(regexp_replace(new.payload->>'text',
                            '(?<![0-9A-Za-z_])[0-9]{8}(?![0-9A-Za-z_])', '********', 'g')));
  return new;
end $$;

create trigger outbox_redact_codes
  before insert or update on outbox
  for each row
  when (new.channel = 'sms' and (new.delivered_at is not null or new.failed_at is not null)
        and jsonb_typeof(new.payload->'text') = 'string')
  execute function outbox_redact_codes();

-- Rows already final keep no code either.
update outbox set payload = payload
 where channel = 'sms' and (delivered_at is not null or failed_at is not null);

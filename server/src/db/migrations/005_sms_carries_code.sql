-- Undoing a deposit must know which SMS carried a pickup code. Until now every SMS did.
update outbox set payload = payload || '{"carriesCode": true}'::jsonb
 where channel = 'sms' and not (payload ? 'carriesCode');

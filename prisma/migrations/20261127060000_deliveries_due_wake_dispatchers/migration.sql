-- Dispatchers are woken by the outbox itself, and only when it has work for them (issue 30). They were
-- woken by every transaction change that wrote an event, each wake-up a claim of events and one of
-- deliveries, and most such events are written SKIPPED (a mode without a URL, migration
-- 20261127030000): the empty claims cost about a seventh of PostgreSQL's CPU per initiate in the
-- benchmark. Now a row that becomes due for an attempt (written PENDING, or set back to PENDING by a
-- redelivery) notifies the channel `paygate_deliveries_due`, with an empty payload: PostgreSQL folds
-- the notifications of one database transaction into one, sent at its commit.

CREATE FUNCTION "paygate_notify_deliveries_due"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('paygate_deliveries_due', '');
  RETURN NULL;
END
$$;

-- An event written for its mode's first endpoint: the routing trigger (migration 20261127030000)
-- notifies when it leaves the event PENDING, so that a written event costs no second trigger.
CREATE OR REPLACE FUNCTION "paygate_route_webhook_event"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."state" = 'PENDING' THEN
    IF "paygate_first_endpoint_takes"(NEW."merchant_id", NEW."is_live", NEW."type") THEN
      PERFORM pg_notify('paygate_deliveries_due', '');
    ELSE
      NEW."state" := 'SKIPPED';
    END IF;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "webhook_events_due_again"
AFTER UPDATE OF "state" ON "webhook_events"
FOR EACH ROW WHEN (OLD."state" <> 'PENDING' AND NEW."state" = 'PENDING')
EXECUTE FUNCTION "paygate_notify_deliveries_due"();

-- Deliveries to the other endpoints: written by the fan-out, or by a redelivery.
CREATE TRIGGER "webhook_deliveries_due"
AFTER INSERT ON "webhook_deliveries"
FOR EACH ROW WHEN (NEW."state" = 'PENDING')
EXECUTE FUNCTION "paygate_notify_deliveries_due"();

CREATE TRIGGER "webhook_deliveries_due_again"
AFTER UPDATE OF "state" ON "webhook_deliveries"
FOR EACH ROW WHEN (OLD."state" <> 'PENDING' AND NEW."state" = 'PENDING')
EXECUTE FUNCTION "paygate_notify_deliveries_due"();

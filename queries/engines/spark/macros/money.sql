-- Spark's body of the macro money (queries/schema/warehouse.sql): the UDF of warehouse/spark_money.py, since
-- Spark's own cast of a DOUBLE goes through Java's Double.toString, not always the shortest round-trip text.
-- Grain: one value. No parameters (arguments only).
(x) = trainledger_money(x)

-- Spark's body of the macro money_residue: {places, n} from the UDF of warehouse/spark_money.py, n as
-- DECIMAL(38, 0) (Spark has no BIGNUM). Grain: one value. No parameters (arguments only).
(x) = trainledger_money_residue(x)

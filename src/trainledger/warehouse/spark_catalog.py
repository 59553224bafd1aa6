"""``[warehouse] catalog`` / ``database``: trainledger's tables named in a Spark catalog.

With a database set, each big table is also an external parquet table ``<catalog>.<database>.<table>``
(``spark_catalog`` when no catalog is named: Spark's session catalog, a Hive metastore or AWS Glue where the
cluster has one), so other tools on the cluster query the allocations by name. The pointer file stays the
commit point (``spark_tables.py``): after it is swapped, each table is pointed at its committed folder; a run
killed in between leaves the catalog on the previous version, and the next writer points it again. The
database is created when missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trainledger.core.config import Config
from trainledger.core.errors import ConfigError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _quoted(*names: str) -> str:
    return ".".join(f"`{n}`" for n in names)


class SparkDatabase:
    """The database that names the tables, or nothing when ``[warehouse] database`` is not set."""

    def __init__(self, spark: SparkSession, config: Config) -> None:
        self.spark = spark
        self.catalog = config.warehouse.catalog or "spark_catalog"
        self.database = config.warehouse.database

    @property
    def enabled(self) -> bool:
        return self.database is not None

    def name(self, table: str) -> str:
        assert self.database is not None
        return _quoted(self.catalog, self.database, table)

    def ensure(self) -> None:
        """Create the database when missing; an unknown catalog is a config error naming the key."""
        assert self.database is not None
        if self.catalog != "spark_catalog" and not self._catalog_known():
            raise ConfigError(
                f"[warehouse] catalog = {self.catalog!r}: Spark knows no such catalog; configure it in "
                f'spark_conf ("spark.sql.catalog.{self.catalog}" = its implementation class) or on the cluster'
            )
        self.spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {_quoted(self.catalog, self.database)}")

    def _catalog_known(self) -> bool:
        """Spark loads a catalog other than its session catalog from ``spark.sql.catalog.<name>`` only."""
        return self.spark.conf.get(f"spark.sql.catalog.{self.catalog}", None) is not None

    def location(self, table: str) -> str | None:
        """Where the catalog's table reads from now, None when it has no such table."""
        name = self.name(table)
        if not self.spark.catalog.tableExists(name):
            return None
        for row in self.spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect():
            if row[0] == "Location":
                return str(row[1])
        return None

    def point(self, table: str, folder: Path, ddl: str) -> None:
        """Make ``table`` read ``folder`` (created as an external parquet table the first time)."""
        uri = folder.resolve().as_uri()
        if _same(self.location(table), uri):
            return
        name = self.name(table)
        try:
            if self.spark.catalog.tableExists(name):
                self.spark.sql(f"ALTER TABLE {name} SET LOCATION '{uri}'")
                self.spark.sql(f"REFRESH TABLE {name}")
            else:
                self.spark.sql(f"CREATE TABLE {name} ({ddl}) USING parquet LOCATION '{uri}'")
        except Exception as exc:
            if type(exc).__name__ not in ("AnalysisException", "SparkConnectGrpcException"):
                raise
            first = str(exc).splitlines()[0]
            raise ConfigError(
                f"[warehouse] catalog = {self.catalog!r}: cannot hold trainledger's plain parquet table {name} "
                f"({first}); use a catalog that takes external parquet tables (the session catalog, a Hive "
                "metastore or AWS Glue)"
            ) from None


def _same(location: str | None, uri: str) -> bool:
    """Spark writes ``file:/x`` where a URI is ``file:///x``."""
    if location is None:
        return False
    return location.replace("file:///", "file:/").rstrip("/") == uri.replace("file:///", "file:/").rstrip("/")

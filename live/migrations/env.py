"""Alembic environment: the app passes its own connection (live.db.upgrade); the command line
(`alembic upgrade head`) builds one from MIZAN_DATABASE_URL or the default SQLite file."""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context

from live.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:  # called from the app: keep its logging and its transaction
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=connection.dialect.name == "sqlite")
        context.run_migrations()
        return
    if config.config_file_name:
        fileConfig(config.config_file_name, disable_existing_loggers=False)
    from live import db

    eng = db.make_engine(db.database_url())
    with eng.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata,
                          render_as_batch=conn.dialect.name == "sqlite")
        with context.begin_transaction():
            context.run_migrations()


def run_migrations_offline() -> None:
    from live import db

    context.configure(url=db.database_url(), target_metadata=target_metadata,
                      literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()

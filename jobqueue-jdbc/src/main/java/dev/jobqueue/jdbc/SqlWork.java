package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** Statements run on one connection, inside a transaction the caller manages. */
@FunctionalInterface
public interface SqlWork<T> {

	T run(Connection connection) throws SQLException;

}

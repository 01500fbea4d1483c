/**
 * The SQLite implementation of the store: transactions ({@code SqliteDatabase}), schema,
 * and statements. The worker's hot path is {@code SqliteJobStore} (enqueue in
 * {@code JobInserts}, the claim statement in {@code SqliteClaims}, outcomes in
 * {@code SqliteCompletions}); operators' actions are {@code SqliteJobAdminStore}.
 * Statements use {@code {jobs}}-style table names ({@code Tables}) and {@code :name}
 * parameters ({@code Sql}).
 */
package dev.jobqueue.sqlite;

import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.Tables;

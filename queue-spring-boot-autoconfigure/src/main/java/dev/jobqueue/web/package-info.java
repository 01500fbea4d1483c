/**
 * What the endpoint and the dashboard share about web requests, apart from both.
 */
package dev.jobqueue.web;

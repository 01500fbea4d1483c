package dev.jobqueue.it.kotlin

import dev.jobqueue.JobContext
import dev.jobqueue.JobHandler
import dev.jobqueue.JobQueue
import dev.jobqueue.JobStatus
import dev.jobqueue.test.AutoConfigureJobQueue
import dev.jobqueue.test.JobQueueTester
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.stereotype.Component
import java.util.concurrent.CopyOnWriteArrayList

/**
 * A Kotlin application's `suspend fun` handlers run: the payload is the first parameter (the compiler's hidden
 * continuation is not taken for a second one), the handler may suspend and resume on another thread, and its
 * result is what the coroutine returned.
 */
@SpringBootTest(classes = [KotlinApplication::class])
@AutoConfigureJobQueue
class SuspendHandlerTests(@Autowired val jobQueue: JobQueue, @Autowired val tester: JobQueueTester,
		@Autowired val greetings: Greetings) {

	@Test
	fun `a suspend handler runs to completion and its result is kept`() {
		val id = jobQueue.enqueue("greet", Greeting("Ada"))

		tester.runDueJobs()

		val job = jobQueue.find(id).orElseThrow()
		assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED)
		assertThat(job.result()).isEqualTo("\"Hello, Ada\"")
	}

	@Test
	fun `a suspend handler that returns Unit and takes the job context keeps no result`() {
		val id = jobQueue.enqueue("remember", Greeting("Grace"))

		tester.runDueJobs()

		val job = jobQueue.find(id).orElseThrow()
		assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED)
		assertThat(job.result()).isNull()
		assertThat(greetings.seen).contains("Grace (attempt 1)")
	}

	@Test
	fun `an exception thrown after suspending fails the run with it`() {
		val id = jobQueue.enqueue("refuse", Greeting("Mallory"))

		tester.runDueJobs()

		val job = jobQueue.find(id).orElseThrow()
		assertThat(job.status()).isEqualTo(JobStatus.FAILED)
		assertThat(job.errorCode()).isEqualTo("INVALID_INPUT:INVALID")
	}

}

data class Greeting(val name: String)

@Component
class Greetings {

	val seen = CopyOnWriteArrayList<String>()

	@JobHandler("greet")
	suspend fun greet(greeting: Greeting): String {
		val text = withContext(Dispatchers.Default) { "Hello, ${greeting.name}" }
		return text
	}

	@JobHandler("remember")
	suspend fun remember(greeting: Greeting, context: JobContext) {
		yield()
		seen.add("${greeting.name} (attempt ${context.attempt()})")
	}

	@JobHandler("refuse")
	suspend fun refuse(greeting: Greeting): String {
		withContext(Dispatchers.Default) { yield() }
		throw dev.jobqueue.InvalidJobInputException("no greetings for ${greeting.name}")
	}

}

/** Its handlers are found by component scanning, as in an application. */
@SpringBootApplication
class KotlinApplication

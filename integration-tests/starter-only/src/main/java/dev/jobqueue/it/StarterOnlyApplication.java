package dev.jobqueue.it;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

import dev.jobqueue.JobHandler;

/** An application with the starter and nothing else: no database, no web server. */
@SpringBootApplication
public class StarterOnlyApplication {

	public static void main(String[] args) {
		SpringApplication.run(StarterOnlyApplication.class, args);
	}

	public record Greeting(String name) {
	}

	@Component
	static class Greetings {

		@JobHandler("greet")
		String greet(Greeting greeting) {
			return "hello " + greeting.name();
		}

	}

}

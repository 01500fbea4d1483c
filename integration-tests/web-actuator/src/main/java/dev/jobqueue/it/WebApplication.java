package dev.jobqueue.it;

import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;

/** An application with the starter, web and actuator: the README's "Getting started". */
@SpringBootApplication
public class WebApplication {

	public static void main(String[] args) {
		SpringApplication.run(WebApplication.class, args);
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

	@RestController
	static class GreetingController {

		private final JobQueue queue;

		GreetingController(JobQueue queue) {
			this.queue = queue;
		}

		@PostMapping("/greetings")
		Map<String, Long> greet(@RequestParam String name) {
			return Map.of("id", this.queue.enqueue("greet", new Greeting(name)));
		}

	}

}

package dev.jobqueue.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * An image service whose slow work (tagging, captioning, thumbnails, a nightly report)
 * runs as background jobs in the same SQLite file as its data.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) throws IOException {
		Files.createDirectories(Path.of(System.getProperty("sample.data-dir", "data")));
		SpringApplication.run(SampleApplication.class, args);
	}

}

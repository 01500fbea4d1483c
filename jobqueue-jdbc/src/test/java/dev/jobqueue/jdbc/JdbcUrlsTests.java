package dev.jobqueue.jdbc;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every JDBC URL form the stores accept that can hold a password, and what is printed of
 * it (in logs, start-up failures, the endpoint and the command line). The guide's table
 * (docs/guide/troubleshooting.md, "What a JDBC URL prints") lists the same rows.
 */
class JdbcUrlsTests {

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiterString = " => ",
			textBlock = """
					jdbc:postgresql://db/app?user=queue&password=s3cret&ssl=true => jdbc:postgresql://db/app?user=queue&password=***&ssl=true
					jdbc:postgresql://db/app?user=queue&PASSWORD=s3cret => jdbc:postgresql://db/app?user=queue&PASSWORD=***
					jdbc:postgresql://db/app?sslmode=verify-full&sslpassword=s3cret => jdbc:postgresql://db/app?sslmode=verify-full&sslpassword=***
					jdbc:postgresql://queue:s3cret@db:5432/app => jdbc:postgresql://queue:***@db:5432/app
					jdbc:postgresql://queue:pa@ss@db/app?ssl=true => jdbc:postgresql://queue:***@db/app?ssl=true
					jdbc:postgresql://queue:pa/ss@db/app => jdbc:postgresql://queue:***@db/app
					jdbc:postgresql://db1:5432,db2:5432/app?user=queue&password=s3cret => jdbc:postgresql://db1:5432,db2:5432/app?user=queue&password=***
					jdbc:mysql://queue:s3cret@db:3306/app => jdbc:mysql://queue:***@db:3306/app
					jdbc:mysql://root:pa@ss@db:3306/app => jdbc:mysql://root:***@db:3306/app
					jdbc:mysql://db/app?user=root&password=s3cret => jdbc:mysql://db/app?user=root&password=***
					jdbc:mysql://db/app?password1=first&password2=second&password3=third => jdbc:mysql://db/app?password1=***&password2=***&password3=***
					jdbc:mysql://db/app?trustCertificateKeyStorePassword=t&clientCertificateKeyStorePassword=k => jdbc:mysql://db/app?trustCertificateKeyStorePassword=***&clientCertificateKeyStorePassword=***
					jdbc:mariadb://db/app?trustStorePassword=t&keyStorePassword=k&keyPassword=p => jdbc:mariadb://db/app?trustStorePassword=***&keyStorePassword=***&keyPassword=***
					jdbc:mysql://address=(host=db)(port=3306)(user=root)(password=s3cret)/app => jdbc:mysql://address=(host=db)(port=3306)(user=root)(password=***)/app
					jdbc:mysql://(host=db,port=3306,user=root,password=s3cret)/app => jdbc:mysql://(host=db,port=3306,user=root,password=***)/app
					jdbc:mariadb://db/app;user=root;password=s3cret;ssl=true => jdbc:mariadb://db/app;user=root;password=***;ssl=true
					jdbc:mariadb://db/app?user=root&pwd=s3cret => jdbc:mariadb://db/app?user=root&pwd=***
					jdbc:sqlite:/var/lib/app/queue.db?password=s3cret => jdbc:sqlite:/var/lib/app/queue.db?password=***
					jdbc:sqlite:/var/lib/app/queue.db => jdbc:sqlite:/var/lib/app/queue.db
					jdbc:postgresql://db:5432/app?user=queue => jdbc:postgresql://db:5432/app?user=queue
					""")
	void passwordsAreMaskedInEveryForm(String url, String printed) {
		assertThat(JdbcUrls.withoutCredentials(url)).isEqualTo(printed);
	}

}

CREATE TABLE IF NOT EXISTS orders (id varchar(36) PRIMARY KEY, item varchar(100) NOT NULL);

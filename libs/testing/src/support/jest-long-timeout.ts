// integration and e2e tests talk to a real broker and database: give them time
jest.setTimeout(180_000);

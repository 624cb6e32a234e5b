/* global db, rs, quit -- mongosh */
// The health check of docker-compose.yml's mongodb (mongosh, in the
// container): the first time, it starts the single-node replica set; then it
// is healthy while this member is the writable primary. It signs in as the
// root user from the container's environment (not on the command line).
const admin = db.getSiblingDB('admin');
admin.auth(process.env.MONGO_INITDB_ROOT_USERNAME, process.env.MONGO_INITDB_ROOT_PASSWORD);
try {
  rs.status();
} catch (err) {
  if (err.codeName !== 'NotYetInitialized') throw err;
  rs.initiate({ _id: process.env.MONGO_REPLICA_SET, members: [{ _id: 0, host: 'mongodb:27017' }] });
}
quit(admin.runCommand({ hello: 1 }).isWritablePrimary ? 0 : 1);

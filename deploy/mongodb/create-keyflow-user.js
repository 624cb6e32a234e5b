/* global db, print -- mongosh */
// Run once by the mongo image, as the root user, when mongod starts on an
// empty data volume: Keyflow's own user, who may read and write Keyflow's
// database and nothing else (MONGO_KEYFLOW_USER, MONGO_KEYFLOW_PASSWORD,
// MONGODB_DATABASE in .env). It is defined in `admin`: authSource=admin.
// A later change of the password in .env needs db.changeUserPassword() too.
const user = process.env.MONGO_KEYFLOW_USER;
const pwd = process.env.MONGO_KEYFLOW_PASSWORD;
const database = process.env.MONGODB_DATABASE;
if (!user || !pwd || !database) throw new Error('MONGO_KEYFLOW_USER, MONGO_KEYFLOW_PASSWORD and MONGODB_DATABASE must be set');
db.getSiblingDB('admin').createUser({ user, pwd, roles: [{ role: 'readWrite', db: database }] });
print(`created user ${user} (readWrite on ${database})`);

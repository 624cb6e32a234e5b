#!/bin/sh
# One-shot job of docker-compose.yml (mongodb-keyfile): the key the members of
# MongoDB's replica set authenticate each other with (--keyFile), made once on
# the volume mongodb-keyfile and kept from then on. mongod refuses a keyfile
# that others than its owner (the image's mongodb user, 999) can read.
set -eu
key=/keyfile/replica-set.key
if [ -s "$key" ]; then
  echo "keyfile present"
  exit 0
fi
# 756 random bytes, base64 (the keyfile's alphabet), on one line.
head -c 756 /dev/urandom | base64 | tr -d '\n' > "$key.new"
chmod 400 "$key.new"
chown 999:999 "$key.new"
mv "$key.new" "$key"
echo "keyfile created"

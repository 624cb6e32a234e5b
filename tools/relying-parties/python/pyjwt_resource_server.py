"""A resource server that accepts Keyflow access tokens, with PyJWT (the docs/relying-parties.md recipe).

Each request's Bearer token is an RFC 9068 JWT: its header must say
`typ: at+jwt`, its signature must verify against Keyflow's JWKS (PyJWKClient
caches it and skips keys it cannot use, such as ML-DSA-65's), and its issuer
and audience (this resource's indicator) must be Keyflow's and this
resource's. Keyflow signs access tokens RS256 unless told otherwise.

Environment: KEYFLOW_ISSUER, RESOURCE (the resource indicator), PORT.
"""
import os

import jwt
from flask import Flask, jsonify, request

ISSUER = os.environ["KEYFLOW_ISSUER"]
RESOURCE = os.environ["RESOURCE"]

app = Flask(__name__)
jwks = jwt.PyJWKClient(f"{ISSUER}/.well-known/jwks.json")


def refuse(description):
    response = jsonify(error="invalid_token", error_description=description)
    response.headers["WWW-Authenticate"] = 'Bearer error="invalid_token"'
    return response, 401


@app.get("/orders")
def orders():
    authorization = request.headers.get("Authorization", "")
    if not authorization.startswith("Bearer "):
        return refuse("a Bearer token is required")
    token = authorization[len("Bearer ") :]
    try:
        if jwt.get_unverified_header(token).get("typ") != "at+jwt":
            return refuse("not an access token (typ at+jwt)")
        key = jwks.get_signing_key_from_jwt(token)
        claims = jwt.decode(token, key, algorithms=["RS256", "PS256", "ES256"], audience=RESOURCE, issuer=ISSUER)
    except jwt.PyJWTError as error:
        return refuse(str(error))
    return jsonify(sub=claims["sub"], client_id=claims["client_id"], scope=claims["scope"])


@app.get("/health")
def health():
    return "ok"


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ["PORT"]))

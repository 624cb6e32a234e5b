"""Sign in with Keyflow from a Flask app with Authlib (the docs/relying-parties.md recipe).

Authlib's Flask client reads Keyflow's discovery document, sends the browser
to the authorization endpoint with PKCE (S256), redeems the code and checks
the ID token (signature against the JWKS, issuer, audience, nonce). The app
uses RS256 ID tokens, which Authlib verifies (`keyflow clients create ...
--id-token-alg RS256`).

With RESOURCE and ORDERS_URL set, the app asks for an access token for that
resource (RFC 8707; the app lists it: `--allowed-resource`) and calls the
resource server (pyjwt_resource_server.py) with it.

Environment: KEYFLOW_ISSUER, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, PORT;
RESOURCE and ORDERS_URL optional.
"""
import os
import secrets

import requests
from authlib.integrations.flask_client import OAuth
from flask import Flask, jsonify, session

ISSUER = os.environ["KEYFLOW_ISSUER"]
REDIRECT_URI = os.environ["REDIRECT_URI"]
RESOURCE = os.environ.get("RESOURCE")
ORDERS_URL = os.environ.get("ORDERS_URL")

app = Flask(__name__)
app.secret_key = secrets.token_bytes(32)
oauth = OAuth(app)
oauth.register(
    "keyflow",
    client_id=os.environ["CLIENT_ID"],
    client_secret=os.environ["CLIENT_SECRET"],
    server_metadata_url=f"{ISSUER}/.well-known/openid-configuration",
    # Keyflow asks every client for PKCE.
    client_kwargs={"scope": "openid email profile", "code_challenge_method": "S256"},
)


@app.get("/login")
def login():
    extra = {"resource": RESOURCE} if RESOURCE else {}
    return oauth.keyflow.authorize_redirect(REDIRECT_URI, **extra)


@app.get("/callback")
def callback():
    token = oauth.keyflow.authorize_access_token()
    user = token["userinfo"]  # the ID token's claims, verified
    session["sub"] = user["sub"]
    orders = None
    if ORDERS_URL:
        answer = requests.get(ORDERS_URL, headers={"Authorization": f"Bearer {token['access_token']}"}, timeout=10)
        orders = {"status": answer.status_code, "body": answer.json()}
    return jsonify(signed_in=True, sub=user["sub"], email=user.get("email"), orders=orders)


@app.get("/health")
def health():
    return "ok"


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ["PORT"]))

// Sign in with Keyflow from Go, and accept its access tokens, with go-oidc
// and golang.org/x/oauth2 (the docs/relying-parties.md recipe).
//
//	rp-go login     a web app: /login sends the browser to Keyflow with PKCE
//	                (S256), /callback redeems the code and verifies the ID
//	                token (go-oidc verifies RS256, PS256 and ES256: the app
//	                uses RS256 ID tokens, `--id-token-alg RS256`)
//	rp-go resource  a resource server: /orders accepts a Bearer access token
//	                (RFC 9068) whose signature, issuer and audience (this
//	                resource's indicator) verify, and whose typ is at+jwt
//
// Environment: KEYFLOW_ISSUER, PORT; login: CLIENT_ID, CLIENT_SECRET,
// REDIRECT_URI; resource: RESOURCE.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

func main() {
	if len(os.Args) != 2 || (os.Args[1] != "login" && os.Args[1] != "resource") {
		log.Fatal("usage: rp-go login|resource")
	}
	ctx := context.Background()
	provider, err := oidc.NewProvider(ctx, os.Getenv("KEYFLOW_ISSUER"))
	if err != nil {
		log.Fatalf("discovery: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	if os.Args[1] == "login" {
		loginApp(provider, mux)
	} else {
		resourceServer(ctx, provider, mux)
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), mux))
}

func random() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// pending is what a login started in a browser needs at its callback, by state.
type pending struct{ verifier, nonce string }

func loginApp(provider *oidc.Provider, mux *http.ServeMux) {
	config := oauth2.Config{
		ClientID:     os.Getenv("CLIENT_ID"),
		ClientSecret: os.Getenv("CLIENT_SECRET"),
		RedirectURL:  os.Getenv("REDIRECT_URI"),
		Endpoint:     provider.Endpoint(),
		Scopes:       []string{oidc.ScopeOpenID, "email", "profile"},
	}
	verifier := provider.Verifier(&oidc.Config{ClientID: config.ClientID})
	var mu sync.Mutex
	logins := map[string]pending{}

	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		state, p := random(), pending{verifier: oauth2.GenerateVerifier(), nonce: random()}
		mu.Lock()
		logins[state] = p
		mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "state", Value: state, HttpOnly: true, SameSite: http.SameSiteLaxMode, Path: "/"})
		// Keyflow asks every client for PKCE: S256ChallengeOption sends it.
		http.Redirect(w, r, config.AuthCodeURL(state, oauth2.S256ChallengeOption(p.verifier), oidc.Nonce(p.nonce)), http.StatusFound)
	})

	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		cookie, err := r.Cookie("state")
		state := r.URL.Query().Get("state")
		mu.Lock()
		p, ok := logins[state]
		delete(logins, state)
		mu.Unlock()
		if err != nil || cookie.Value != state || !ok {
			http.Error(w, "unknown state", http.StatusBadRequest)
			return
		}
		token, err := config.Exchange(r.Context(), r.URL.Query().Get("code"), oauth2.VerifierOption(p.verifier))
		if err != nil {
			http.Error(w, "code exchange: "+err.Error(), http.StatusBadGateway)
			return
		}
		raw, _ := token.Extra("id_token").(string)
		idToken, err := verifier.Verify(r.Context(), raw)
		if err != nil || idToken.Nonce != p.nonce {
			http.Error(w, fmt.Sprintf("ID token: %v", errors.Join(err, nonceError(idToken, p.nonce))), http.StatusUnauthorized)
			return
		}
		var claims struct {
			Email string `json:"email"`
		}
		if err := idToken.Claims(&claims); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"signed_in": true, "sub": idToken.Subject, "email": claims.Email})
	})
}

func nonceError(token *oidc.IDToken, nonce string) error {
	if token != nil && token.Nonce != nonce {
		return errors.New("nonce does not match")
	}
	return nil
}

func resourceServer(ctx context.Context, provider *oidc.Provider, mux *http.ServeMux) {
	var discovery struct {
		JWKSURI string `json:"jwks_uri"`
	}
	if err := provider.Claims(&discovery); err != nil {
		log.Fatalf("discovery: %v", err)
	}
	// An access token's audience is the resource: go-oidc checks it as it would a client id.
	keys := oidc.NewRemoteKeySet(ctx, discovery.JWKSURI)
	verifier := oidc.NewVerifier(os.Getenv("KEYFLOW_ISSUER"), keys, &oidc.Config{
		ClientID:             os.Getenv("RESOURCE"),
		SupportedSigningAlgs: []string{oidc.RS256, oidc.PS256, oidc.ES256},
	})
	mux.HandleFunc("/orders", func(w http.ResponseWriter, r *http.Request) {
		raw, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !found || !isAccessToken(raw) {
			refuse(w, "a Bearer access token (typ at+jwt) is required")
			return
		}
		token, err := verifier.Verify(r.Context(), raw)
		if err != nil {
			refuse(w, err.Error())
			return
		}
		var claims struct {
			ClientID string `json:"client_id"`
			Scope    string `json:"scope"`
		}
		if err := token.Claims(&claims); err != nil {
			refuse(w, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"sub": token.Subject, "client_id": claims.ClientID, "scope": claims.Scope})
	})
}

// isAccessToken reads the JOSE header's typ (RFC 9068 §4): an ID token is no access token.
func isAccessToken(raw string) bool {
	header, _, found := strings.Cut(raw, ".")
	decoded, err := base64.RawURLEncoding.DecodeString(header)
	var h struct {
		Typ string `json:"typ"`
	}
	return found && err == nil && json.Unmarshal(decoded, &h) == nil && strings.EqualFold(h.Typ, "at+jwt")
}

func refuse(w http.ResponseWriter, description string) {
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": description})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

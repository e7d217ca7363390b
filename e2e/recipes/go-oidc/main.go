// Go with go-oidc (github.com/coreos/go-oidc) and golang.org/x/oauth2: a web app that signs its
// users in with Signet (docs/recipes.md). Register a confidential client with the redirect URI
// {BASE_URL}/callback; every value comes from the environment.
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"log"
	"net/http"
	"net/url"
	"os"

	oidc "github.com/coreos/go-oidc"
	"golang.org/x/oauth2"
)

func random() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func main() {
	ctx := context.Background()
	issuer := os.Getenv("SIGNET_ISSUER") // exactly the discovery document's "issuer" (hosted: with its trailing slash)
	baseURL := os.Getenv("BASE_URL")     // this app's origin, e.g. https://app.example.com
	provider, err := oidc.NewProvider(ctx, issuer)
	if err != nil {
		log.Fatal(err)
	}
	config := oauth2.Config{
		ClientID:     os.Getenv("SIGNET_CLIENT_ID"),
		ClientSecret: os.Getenv("SIGNET_CLIENT_SECRET"),
		Endpoint:     provider.Endpoint(),
		RedirectURL:  baseURL + "/callback",
		Scopes:       []string{oidc.ScopeOpenID, "profile"},
	}
	// Signet signs ID tokens with RS256, go-oidc's default.
	verifier := provider.Verifier(&oidc.Config{ClientID: config.ClientID})

	http.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		state, nonce, codeVerifier := random(), random(), random()
		for name, value := range map[string]string{"state": state, "nonce": nonce, "verifier": codeVerifier} {
			http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
		}
		challenge := sha256.Sum256([]byte(codeVerifier))
		http.Redirect(w, r, config.AuthCodeURL(state, oidc.Nonce(nonce),
			oauth2.SetAuthURLParam("code_challenge", base64.RawURLEncoding.EncodeToString(challenge[:])),
			oauth2.SetAuthURLParam("code_challenge_method", "S256")), http.StatusFound)
	})

	http.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		cookie := func(name string) string {
			c, err := r.Cookie(name)
			if err != nil {
				return ""
			}
			return c.Value
		}
		if r.URL.Query().Get("state") == "" || r.URL.Query().Get("state") != cookie("state") {
			http.Error(w, "state did not match", http.StatusBadRequest)
			return
		}
		token, err := config.Exchange(ctx, r.URL.Query().Get("code"), oauth2.SetAuthURLParam("code_verifier", cookie("verifier")))
		if err != nil {
			http.Error(w, "token exchange failed: "+err.Error(), http.StatusBadGateway)
			return
		}
		rawIDToken, _ := token.Extra("id_token").(string)
		idToken, err := verifier.Verify(ctx, rawIDToken)
		if err != nil || idToken.Nonce != cookie("nonce") {
			http.Error(w, "invalid ID token", http.StatusBadGateway)
			return
		}
		var claims struct {
			Sub               string `json:"sub"`
			PreferredUsername string `json:"preferred_username"`
		}
		if err := idToken.Claims(&claims); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		userInfo, err := provider.UserInfo(ctx, oauth2.StaticTokenSource(token))
		if err != nil || userInfo.Subject != claims.Sub {
			http.Error(w, "userinfo failed", http.StatusBadGateway)
			return
		}
		w.Header().Set("content-type", "application/json")
		json.NewEncoder(w).Encode(claims)
	})

	u, err := url.Parse(baseURL)
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe(u.Host, nil))
}

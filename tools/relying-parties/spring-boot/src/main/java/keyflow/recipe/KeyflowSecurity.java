package keyflow.recipe;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.client.oidc.web.logout.OidcClientInitiatedLogoutSuccessHandler;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;
import org.springframework.security.oauth2.client.web.DefaultOAuth2AuthorizationRequestResolver;
import org.springframework.security.oauth2.client.web.OAuth2AuthorizationRequestCustomizers;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Two filter chains: /api/** accepts Keyflow access tokens (RFC 9068), the
 * rest signs the browser in with Keyflow and signs it out there too.
 */
@Configuration
public class KeyflowSecurity {

  /**
   * Keyflow's access tokens: `typ` at+jwt (RFC 9068 §4), which Boot's default
   * decoder refuses (it takes JWT alone), signed RS256 against the issuer's
   * JWKS, with this resource in `aud`.
   */
  @Bean
  JwtDecoder accessTokenDecoder(@Value("${keyflow.issuer}") String issuer, @Value("${keyflow.resource}") String resource) {
    NimbusJwtDecoder decoder = NimbusJwtDecoder.withIssuerLocation(issuer)
        .jwtProcessorCustomizer(processor -> processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(new JOSEObjectType("at+jwt"))))
        .build();
    decoder.setJwtValidator(new DelegatingOAuth2TokenValidator<Jwt>(
        new JwtTimestampValidator(),
        new JwtIssuerValidator(issuer),
        token -> token.getAudience().contains(resource)
            ? OAuth2TokenValidatorResult.success()
            : OAuth2TokenValidatorResult.failure(new OAuth2Error("invalid_token", "the token is not for " + resource, null))));
    return decoder;
  }

  @Bean
  @Order(1)
  SecurityFilterChain api(HttpSecurity http, JwtDecoder accessTokenDecoder) throws Exception {
    return http.securityMatcher("/api/**")
        .authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
        .oauth2ResourceServer(server -> server.jwt(jwt -> jwt.decoder(accessTokenDecoder)))
        .sessionManagement(sessions -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .csrf(csrf -> csrf.disable())
        .build();
  }

  @Bean
  @Order(2)
  SecurityFilterChain browser(HttpSecurity http, ClientRegistrationRepository registrations) throws Exception {
    // Keyflow asks every client for PKCE; Spring Boot 3 sends it for public clients only, unless told (Boot 4 always sends it).
    DefaultOAuth2AuthorizationRequestResolver withPkce = new DefaultOAuth2AuthorizationRequestResolver(registrations, "/oauth2/authorization");
    withPkce.setAuthorizationRequestCustomizer(OAuth2AuthorizationRequestCustomizers.withPkce());
    // RP-initiated logout: the browser goes on to Keyflow's end_session endpoint and comes back here.
    OidcClientInitiatedLogoutSuccessHandler signOutAtKeyflow = new OidcClientInitiatedLogoutSuccessHandler(registrations);
    signOutAtKeyflow.setPostLogoutRedirectUri("{baseUrl}/signed-out");
    return http
        .authorizeHttpRequests(requests -> requests.requestMatchers("/health", "/signed-out", "/error").permitAll().anyRequest().authenticated())
        .oauth2Login(login -> login.authorizationEndpoint(endpoint -> endpoint.authorizationRequestResolver(withPkce)))
        .logout(logout -> logout.logoutSuccessHandler(signOutAtKeyflow))
        .oauth2Client(Customizer.withDefaults())
        .build();
  }
}

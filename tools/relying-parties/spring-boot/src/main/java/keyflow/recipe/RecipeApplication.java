package keyflow.recipe;

import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.core.oidc.user.OidcUser;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Sign in with Keyflow, and accept its access tokens: the Spring Boot recipe of docs/relying-parties.md. */
@SpringBootApplication
@RestController
public class RecipeApplication {
  public static void main(String[] args) {
    SpringApplication.run(RecipeApplication.class, args);
  }

  /** The signed-in user, from the ID token Spring Security verified. */
  @GetMapping("/")
  public Map<String, Object> me(@AuthenticationPrincipal OidcUser user) {
    return Map.of("signed_in", true, "sub", user.getSubject(), "email", user.getEmail());
  }

  /** A resource: the caller's access token, verified by KeyflowSecurity's decoder. */
  @GetMapping("/api/orders")
  public Map<String, Object> orders(@AuthenticationPrincipal Jwt token) {
    return Map.of("sub", token.getSubject(), "client_id", token.getClaimAsString("client_id"), "scope", token.getClaimAsString("scope"));
  }

  @GetMapping({"/health", "/signed-out"})
  public Map<String, Object> open() {
    return Map.of("signed_in", false);
  }
}

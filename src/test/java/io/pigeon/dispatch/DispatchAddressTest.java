package io.pigeon.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {method}/{service} part of a /v3/queue path: which are accepted and what they name. */
class DispatchAddressTest {

    private static String padded(String url) {
        return Base64.getUrlEncoder().encodeToString(url.getBytes(StandardCharsets.UTF_8));
    }

    private static String unpadded(String url) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(url.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "POST,   http://receiver:8080/hook,          POST",
        "post,   https://receiver/hook?x=1,          POST",
        "Put,    http://127.0.0.1/x,                 PUT",
        "delete, http://[::1]:9/x,                   DELETE",
        "GET,    http://receiver,                    GET"
    })
    void acceptedAddresses(String method, String url, String expectedMethod) {
        for (String service : new String[] {padded(url), unpadded(url)}) {
            DispatchAddress address = DispatchAddress.parse(method, service);
            assertEquals(expectedMethod, address.method());
            assertEquals(url, address.target().toString());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "TRACE   | http://receiver/x             | \"method\"",
                "CONNECT | http://receiver/x             | \"method\"",
                "P0ST    | http://receiver/x             | \"method\"",
                "POST    | ftp://receiver/x              | \"service\"",
                "POST    | /relative/path                | \"service\"",
                "POST    | http://receiver/x#fragment    | \"service\"",
                "POST    | http://receiver:99999/x       | \"service\"",
                "POST    | http://                       | \"service\"",
                "POST    | mailto:someone@example.com    | \"service\""
            })
    void refusedAddressesNameTheField(String method, String url, String field) {
        RuntimeException refused =
                assertThrows(RuntimeException.class, () -> DispatchAddress.parse(method, unpadded(url)));
        assertTrue(refused.getMessage().contains(field), refused.getMessage());
    }

    @ParameterizedTest(name = "service {0}")
    @CsvSource({"not*base64", "%3D%3D", "A"})
    void aServiceThatIsNotUrlSafeBase64IsRefused(String service) {
        RuntimeException refused = assertThrows(RuntimeException.class, () -> DispatchAddress.parse("POST", service));
        assertTrue(refused.getMessage().contains("\"service\""), refused.getMessage());
    }

    @Test
    void aTargetLongerThanTheBoundIsRefused() {
        String url = "http://receiver/" + "a".repeat(DispatchAddress.MAX_TARGET_LENGTH);
        assertThrows(RuntimeException.class, () -> DispatchAddress.parse("POST", unpadded(url)));
    }
}

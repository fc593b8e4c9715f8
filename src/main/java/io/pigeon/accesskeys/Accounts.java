package io.pigeon.accesskeys;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.security.SecureRandom;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Projects and their SQS account ids (the 12 digits of queue URLs and ARNs): one account per project and one project
 * per account, allocated at random on a project's first use and never changed, so a replica may remember both
 * directions once read. What a replica remembers is bounded ({@value #REMEMBERED} of each); past it, it forgets all and
 * reads again.
 */
@ApplicationScoped
public class Accounts {

    public static final Pattern ACCOUNT_ID = Pattern.compile("[0-9]{12}");

    static final int REMEMBERED = 10_000;
    /** Attempts to take a free id: a collision among 9 * 10^11 ids is rare, a concurrent first request too. */
    private static final int ATTEMPTS = 5;

    private final AccountStore store;
    private final SecureRandom random = new SecureRandom();
    private final ConcurrentHashMap<String, String> accountByProject = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> projectByAccount = new ConcurrentHashMap<>();

    public Accounts(AccountStore store) {
        this.store = store;
    }

    /** The project's account id, allocated now if it has none. */
    public Uni<String> accountOf(String project) {
        String known = accountByProject.get(project);
        if (known != null) {
            return Uni.createFrom().item(known);
        }
        return take(project, ATTEMPTS).invoke(account -> remember(project, account));
    }

    /** The project an account id names; empty for an id no project holds (never allocated by this call). */
    public Uni<Optional<String>> projectOf(String accountId) {
        if (accountId == null || !ACCOUNT_ID.matcher(accountId).matches()) {
            return Uni.createFrom().item(Optional.empty());
        }
        String known = projectByAccount.get(accountId);
        if (known != null) {
            return Uni.createFrom().item(Optional.of(known));
        }
        return store.projectOf(accountId).invoke(found -> found.ifPresent(project -> remember(project, accountId)));
    }

    private Uni<String> take(String project, int attemptsLeft) {
        return store.take(project, candidate()).flatMap(taken -> {
            if (taken.isPresent()) {
                return Uni.createFrom().item(taken.get());
            }
            if (attemptsLeft <= 1) {
                return store.accountOf(project)
                        .map(found -> found.orElseThrow(() -> new IllegalStateException(
                                "no SQS account id could be allocated for a project after " + ATTEMPTS + " attempts")));
            }
            return take(project, attemptsLeft - 1);
        });
    }

    /** Twelve digits, the first not zero (a client that reads the id as a number keeps all twelve). */
    private String candidate() {
        return Long.toString(100_000_000_000L + (long) (random.nextDouble() * 900_000_000_000L));
    }

    private void remember(String project, String account) {
        if (accountByProject.size() >= REMEMBERED || projectByAccount.size() >= REMEMBERED) {
            accountByProject.clear();
            projectByAccount.clear();
        }
        accountByProject.put(project, account);
        projectByAccount.put(account, project);
    }
}

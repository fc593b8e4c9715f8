package io.pigeon.api.console;

import io.pigeon.api.Public;
import io.pigeon.health.StorageHealth;
import io.pigeon.pool.FlavorService;
import io.pigeon.pool.PoolService;
import io.pigeon.queue.QueueService;
import io.pigeon.rules.Rejection;
import io.pigeon.tenancy.Callers;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The console's home (docs/console.md): the chooser of projects at {@code /console}, and the operator's view of pools
 * and flavors. Its pages pass through {@link ConsolePages}, as every console page does.
 */
@Path("/console")
@Produces(MediaType.TEXT_HTML)
// Open to the API's bearer-token check: the console's own sign-in decides who acts (ConsoleSignIn, ConsoleIdentity).
@Public
@ConsoleSignedIn
public class ConsoleHomeResource {

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance chooser(HomeView.Chooser view);

        static native TemplateInstance operator(HomeView.Operator view);
    }

    private final ConsolePages pages;
    private final ConsoleIdentity identity;
    private final QueueService queues;
    private final PoolService pools;
    private final FlavorService flavors;
    private final StorageHealth health;

    public ConsoleHomeResource(
            ConsolePages pages,
            ConsoleIdentity identity,
            QueueService queues,
            PoolService pools,
            FlavorService flavors,
            StorageHealth health) {
        this.pages = pages;
        this.identity = identity;
        this.queues = queues;
        this.pools = pools;
        this.flavors = flavors;
        this.health = health;
    }

    @GET
    public Uni<Response> chooser(
            @QueryParam("project") String project, @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return pages.serve(null, "/console", cookie, null, call -> {
            if (project != null) {
                // The project's page decides whether it may be shown, as it does for a link followed or typed.
                return Uni.createFrom().item(ConsolePages.redirect(ConsolePages.projectHref(project)));
            }
            return ConsolePages.page(
                    Templates.chooser(HomeView.chooser(call.frame(), identity.projects(), identity.anyProject())),
                    call);
        });
    }

    /**
     * The operator's view of pools and flavors, for the operator as the API decides it ({@link
     * ConsoleIdentity#operator}); 403 for anyone else, before anything is read. Pools, flavors and counts are read
     * through the services of /v2/pools, /v2/flavors and the storage health check, at most
     * {@value PoolService#MAX_PAGE_SIZE} of each.
     */
    @GET
    @Path("/operator")
    public Uni<Response> operator(
            @HeaderParam(Callers.ROLES_HEADER) String roles, @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return pages.serve(null, "/console", cookie, null, call -> {
            if (!identity.operator(roles)) {
                throw new Rejection(
                        Rejection.Reason.FORBIDDEN,
                        "The operator view is the operator's: as for the API's pools, send X-Roles: admin with"
                                + " pigeon.auth.trust-roles-header=true (authentication off), or sign in with the"
                                + " operator role.");
            }
            return Uni.combine()
                    .all()
                    .unis(
                            pools.list(null, PoolService.MAX_PAGE_SIZE),
                            flavors.list(null, PoolService.MAX_PAGE_SIZE),
                            health.report(),
                            queues.heldPerDatabase())
                    .with((registered, classes, report, held) -> HomeView.operator(
                            call.frame(), registered, classes, report, held, PoolService.MAX_PAGE_SIZE))
                    .chain(view -> ConsolePages.page(Templates.operator(view), call));
        });
    }
}

package io.pigeon.testing;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on 127.0.0.1 that plays a Kubernetes Service in front of a database: each accepted connection is piped
 * both ways to the backend it points at now. Repointing it (a failover) cuts every connection it carries, as a
 * Service's endpoints moving does to the connections through it; a connection whose backend dies or cannot be reached
 * is cut on the client's side too. Freezing them ({@link #freezeAll}) plays the harsher failover, in which the old
 * backend's address just stops answering: the connections stay open and every byte either way is dropped, so their
 * ends learn nothing until they give up by themselves. Test code only: a thread per direction is plenty for a few
 * dozen connections.
 */
public final class TcpProxy implements Closeable {

    private final ServerSocket listening;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    /** Connections whose bytes are dropped, both ways, until they close. */
    private final Set<Socket> frozen = ConcurrentHashMap.newKeySet();

    private volatile int backendPort;
    private volatile boolean closed;

    private TcpProxy(ServerSocket listening, int backendPort) {
        this.listening = listening;
        this.backendPort = backendPort;
    }

    /** Listens on a free port of 127.0.0.1 and pipes to {@code backendPort} there. */
    public static TcpProxy start(int backendPort) throws IOException {
        ServerSocket socket = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        TcpProxy proxy = new TcpProxy(socket, backendPort);
        Thread accepting = new Thread(proxy::accept, "proxy-accept-" + socket.getLocalPort());
        accepting.setDaemon(true);
        accepting.start();
        return proxy;
    }

    public int port() {
        return listening.getLocalPort();
    }

    /** Points new connections at {@code port} and cuts every connection made before. */
    public void repoint(int port) {
        backendPort = port;
        cutAll();
    }

    /** Cuts every connection carried now (new ones are accepted). */
    public void cutAll() {
        for (Socket socket : open) {
            quietlyClose(socket);
        }
    }

    /** Drops every byte of the connections carried now, both ways, without closing them (new ones pass). */
    public void freezeAll() {
        frozen.addAll(open);
    }

    @Override
    public void close() {
        closed = true;
        quietlyClose(listening);
        cutAll();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listening.accept();
            } catch (IOException e) {
                return; // closed
            }
            Socket backend = new Socket();
            try {
                backend.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), backendPort), 5000);
            } catch (IOException e) {
                // The backend is gone: the client sees its connection closed, as through a Service without endpoints.
                quietlyClose(backend);
                quietlyClose(client);
                continue;
            }
            open.add(client);
            open.add(backend);
            pipe(client, backend);
            pipe(backend, client);
        }
    }

    /** Copies {@code from} to {@code to} until either ends, then closes both. */
    private void pipe(Socket from, Socket to) {
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int read;
                        while ((read = in.read(buffer)) >= 0) {
                            if (frozen.contains(from)) {
                                continue; // read and dropped: the sender's writes go through, nothing arrives
                            }
                            out.write(buffer, 0, read);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // cut, or the other side went away
                    } finally {
                        quietlyClose(from);
                        quietlyClose(to);
                    }
                },
                "proxy-pipe");
        thread.setDaemon(true);
        thread.start();
    }

    private void quietlyClose(Closeable closeable) {
        if (closeable instanceof Socket socket) {
            open.remove(socket);
            frozen.remove(socket);
        }
        try {
            closeable.close();
        } catch (IOException e) {
            // already closed
        }
    }
}

/**
 * Keep-alive connections during a graceful drain. Closing every idle connection at the start
 * of a drain (what `server.close()` does) races with clients that reuse a connection: a client
 * that got its previous reply a moment ago has its next request on the wire when the socket
 * closes, and sees ECONNRESET (14 of 465 requests in a drain under load). Here a connection is
 * closed once it has been idle for `idleMs` during the drain: one idle that long at the start
 * closes at once, one that just answered gets that long to send again, and its next request
 * is answered 503 with `connection: close` (and retry headers) instead of a reset. The
 * listener itself is closed only once the work in flight is done (see serve's `close`).
 * @module
 */
import net from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** How long a connection must have been idle before the drain closes it, in ms. */
export const DRAIN_IDLE_MS = 500;
/**
 * How long the listener must have accepted nothing before the drain closes it, in ms: a busy
 * event loop leaves connections in the kernel's accept backlog, and closing the listener resets
 * them; once the work is done, one quiet interval lets them be accepted (and answered 503).
 */
export const DRAIN_QUIET_MS = 250;

interface Tracked {
  /** Requests received and not yet answered. */
  busy: number;
  /** When the last reply finished (or the connection opened). */
  idleSince: number;
  /** Seen idle by a sweep: closed by the next sweep if still idle. */
  marked: boolean;
}

/** Tracks each connection's requests, to close the ones that stay idle during a drain. */
export class ConnectionTracker {
  private readonly sockets = new Map<net.Socket, Tracked>();
  /** When the last connection was accepted. */
  lastAcceptedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly server: Server) {
    server.on('connection', (socket: net.Socket) => {
      this.lastAcceptedAt = performance.now();
      this.sockets.set(socket, { busy: 0, idleSince: performance.now(), marked: false });
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const tracked = this.sockets.get(req.socket);
      if (!tracked) return;
      tracked.busy++;
      tracked.marked = false;
      res.once('close', () => {
        tracked.busy--;
        tracked.idleSince = performance.now();
      });
    });
  }

  /** Stops accepting connections and leaves open ones as they are (unlike `server.close()`). */
  stopListening(): Promise<void> {
    return new Promise((resolve) => net.Server.prototype.close.call(this.server, () => resolve()));
  }

  /**
   * Closes the connections with no request that have been idle for at least `idleMs`, in two
   * sweeps: the first marks them, the next closes those still idle. The event loop reads
   * sockets between two timer runs, so a request that arrived while the loop was busy (its
   * bytes unread, the connection looking idle) is seen before its connection is closed.
   */
  closeIdle(idleMs: number): void {
    const now = performance.now();
    for (const [socket, t] of this.sockets) {
      if (t.busy > 0 || now - t.idleSince < idleMs) t.marked = false;
      else if (!t.marked) t.marked = true;
      else socket.destroy();
    }
  }

  /** Open connections. */
  get size(): number {
    return this.sockets.size;
  }
}

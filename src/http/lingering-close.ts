import type { Socket } from 'node:net';

/** How long a connection closed after an error answer keeps reading what the client still sends. */
const lingerMs = 2000;

/**
 * Closes the connection of an answer sent before the request body was read (a 413, say) without
 * losing the answer. Closing a socket whose client is still sending makes the kernel answer the
 * next bytes with a reset, and a reset can discard the answer before the client has read it. So
 * the server half-closes (the answer, then FIN), keeps reading and dropping what still arrives, and
 * closes once the client has closed its side or after lingerMs (what nginx calls a lingering close).
 * REQUEST_TIMEOUT_MS still bounds a client that never stops sending.
 */
export function lingerBeforeClose(socket: Socket): void {
  const lingering = socket as Socket & { destroySoon?: () => void };
  // Node's HTTP server calls destroySoon once a `Connection: close` answer is written.
  lingering.destroySoon = () => {
    socket.end();
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    timer.unref();
    socket.once('end', () => socket.destroy());
    socket.once('close', () => clearTimeout(timer));
  };
}

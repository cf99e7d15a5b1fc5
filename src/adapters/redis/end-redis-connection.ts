import type { Redis } from 'ioredis';

/**
 * QUIT, so replies already on their way are read, when the connection is ready; otherwise drop the socket: a
 * QUIT on a connection that is reconnecting would wait for Redis to come back.
 */
export async function endRedisConnection(connection: Redis): Promise<void> {
  if (connection.status === 'ready') await connection.quit().catch(() => connection.disconnect());
  else connection.disconnect();
}

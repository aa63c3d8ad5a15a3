import { createRouter } from '../../lib/create-router.ts';
import * as routes from './announcements.routes.ts';
import type { AnnouncementsService } from './announcements.service.ts';

export function createAnnouncementsRouter(announcements: AnnouncementsService) {
  return createRouter().openapi(routes.send, async (c) => {
    const { id, count } = await announcements.send(c.var.user.id, c.req.valid('json'));
    const message = `Notification queued for ${count} user${count === 1 ? '' : 's'}`;
    return c.json({ id, count, message }, 202);
  });
}

import type { User } from '@berth/openapi';
import { Avatar } from '@mui/material';
import { usePlatform } from '../platform/platform-context.ts';

/** Initials of first and last name, else 'U'. */
export function initialsOf(user: Pick<User, 'firstName' | 'lastName'>): string {
  const initials = [user.firstName, user.lastName]
    .map((name) => name.trim().charAt(0).toUpperCase())
    .join('');
  return initials || 'U';
}

/** The user's picture, else their initials. */
export function UserAvatar({
  user,
  size = 36,
  decorative = false,
}: {
  user: Pick<User, 'firstName' | 'lastName' | 'avatarUrl'>;
  size?: number;
  /** Hidden from assistive technology (inside a control that has its own name). */
  decorative?: boolean;
}) {
  const { apiBaseUrl } = usePlatform();
  // Avatar URLs are paths of the Berth server (the desktop app reaches it at apiBaseUrl).
  const src = user.avatarUrl?.startsWith('/')
    ? `${apiBaseUrl}${user.avatarUrl}`
    : (user.avatarUrl ?? undefined);
  return (
    <Avatar
      src={src}
      alt=""
      aria-hidden={decorative || undefined}
      sx={{
        width: size,
        height: size,
        fontSize: size * 0.42,
        bgcolor: 'primary.main',
        color: 'primary.contrastText',
      }}
    >
      {initialsOf(user)}
    </Avatar>
  );
}

import type { User } from '@berth/openapi';
import { Avatar } from '@mui/material';

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
}: {
  user: Pick<User, 'firstName' | 'lastName' | 'avatarUrl'>;
  size?: number;
}) {
  return (
    <Avatar
      src={user.avatarUrl ?? undefined}
      alt=""
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

import type { TaskList } from 'graphile-worker';
import { backupTask } from './instance-backup-task.ts';
import { type BackupTaskDeps, backupTaskContext } from './instance-backup-task-context.ts';
import {
  TASK_BACKUP,
  TASK_RECOVER,
  TASK_RESTORE,
  TASK_RESTORE_INTO_NEW,
} from './instance-backups.service.ts';
import { moveTask, TASK_MOVE } from './instance-move-task.ts';
import { restoreTasks } from './instance-restore-task.ts';

/**
 * The backup and restore jobs (instance-backups.service.ts adds them). A backup streams the engine's
 * dump into the vault part by part (encrypted, hashed, read back and checked), then records the parts
 * and writes a manifest beside them; until then it reads `running`, whatever happens to the server. A
 * restore checks every part first, then lets the engine replace the instance's data.
 */
export function createBackupTasks(deps: BackupTaskDeps): TaskList {
  const ctx = backupTaskContext(deps);
  const { restore, recover, restoreIntoNew } = restoreTasks(ctx);
  return {
    [TASK_BACKUP]: backupTask(ctx),
    [TASK_RESTORE]: restore,
    [TASK_RECOVER]: recover,
    [TASK_RESTORE_INTO_NEW]: restoreIntoNew,
    [TASK_MOVE]: moveTask(ctx),
  };
}

import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { notificationSettings, SETTING_ID } from '../db/schema/notifications'

export const DEFAULT_COOLDOWN_MINUTES = 30
export const DEFAULT_MAX_PER_HOUR = 20

export type NotificationSettingsRecord = typeof notificationSettings.$inferSelect

/** The setting as it stands before anyone saved one: nobody is told. */
export const NO_SETTING: NotificationSettingsRecord = {
  id: SETTING_ID,
  emails: [],
  webhookUrl: null,
  webhookSecretSealed: null,
  channels: [],
  cooldownMinutes: DEFAULT_COOLDOWN_MINUTES,
  maxPerHour: DEFAULT_MAX_PER_HOUR,
  updatedAt: new Date(0),
}

/** The installation's notification setting, or NO_SETTING when none was saved. */
export async function readNotificationSettings(database: Db): Promise<NotificationSettingsRecord> {
  const [row] = await database
    .select()
    .from(notificationSettings)
    .where(eq(notificationSettings.id, SETTING_ID))
    .limit(1)
  return row ?? NO_SETTING
}

/** Whether anyone hears a notification sent now. */
export function hasRecipients(setting: NotificationSettingsRecord): boolean {
  return setting.emails.length > 0 || setting.webhookUrl !== null || setting.channels.length > 0
}

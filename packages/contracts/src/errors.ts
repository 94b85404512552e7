/**
 * The error catalogue: every code a user can meet, NOT_FOUND, NODE_UNAVAILABLE and INTERNAL_ERROR among
 * them (docs/product.md, What a user sees when something fails). One table maps every code to its English
 * message and HTTP status; the API and the web app both read it.
 */
export const errorCatalogue = {
  RATE_LIMIT: { status: 429, message: 'You are sending too many requests. Please wait a moment and try again.' },
  INVALID_INPUT: { status: 400, message: 'The information you entered is invalid.' },
  INVALID_STATE: { status: 409, message: 'Unable to complete the operation due to the invalid state of the object.' },
  NO_PERMISSION: {
    status: 403,
    message: 'You do not have permission to do this. Ask the server owner to grant you more access from the dashboard.',
  },
  TEMPORARILY_DISABLED: {
    status: 503,
    message: 'This feature is temporarily disabled for maintenance or because of an issue. Please try again later.',
  },
  INVALID_CREDENTIALS: { status: 401, message: 'The email address and password combination does not match.' },
  SERVER_NAME_ALREADY_IN_USE: { status: 409, message: 'This server name is already in use. Please choose a unique server name.' },
  SERVER_LIMIT_REACHED: {
    status: 403,
    message: 'You have reached the maximum number of active servers. Please wait until one of your servers is hibernated.',
  },
  BILLING_INFO_REQUIRED: { status: 402, message: 'Please provide your billing information on the settings page.' },
  INSUFFICIENT_BALANCE: { status: 402, message: 'Your balance is too low. Please top up your balance.' },
  TWOFACTOR_REQUIRED: { status: 403, message: 'Please enable two-factor authentication first.' },
  INVALID_TWOFACTOR: { status: 401, message: 'The two-factor code is incorrect.' },
  ACCOUNT_LOCKED: { status: 403, message: 'Your account is locked. Please contact support.' },
  EMAIL_ADDRESS_REQUIRED: {
    status: 403,
    message: 'Please verify your email address first. A verification email has been sent to you.',
  },
  /** Only when no node has room for a new (or starting) server. */
  NO_SERVERS_AVAILABLE: {
    status: 503,
    message: 'All of our servers are at capacity right now. Please upgrade your plan or try again later.',
  },
  /** The node of an existing server is not connected, or the connection to it failed. */
  NODE_UNAVAILABLE: {
    status: 502,
    message: 'The machine that runs this server cannot be reached right now. Please try again in a minute.',
  },
  SERVER_PLAY_TIME_REACHED: {
    status: 403,
    message:
      "Your account has used today's free play time (shared by its free servers). It starts again after midnight UTC, or upgrade the plan to continue.",
  },
  CONTENT_RESTRICTED: { status: 400, message: 'Please change the server name and/or the message of the day.' },
  EMAIL_ALREADY_REGISTERED: { status: 409, message: 'This email address is already registered.' },
  SUBSCRIPTION_ACTIVE: { status: 409, message: 'You cannot do this while the subscription is active.' },
  DISK_LIMIT: {
    status: 409,
    message:
      'The disk limit of this server has been reached. Upgrade the plan or delete files; the server will not start until this is resolved.',
  },
  NOT_AUTHENTICATED: { status: 401, message: 'You need to sign in to continue.' },
  SERVER_LOCKED: { status: 423, message: 'This server is locked.' },
  NOT_FOUND: { status: 404, message: 'The requested resource was not found.' },
  INTERNAL_ERROR: { status: 500, message: 'Something went wrong on our side. Please try again.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;
export const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCatalogue, value);
}

export function errorStatus(code: ErrorCode): number {
  return errorCatalogue[code].status;
}

export function errorMessage(code: ErrorCode): string {
  return errorCatalogue[code].message;
}

/**
 * A copy of `text` that is a string of its own, in one piece. V8 makes a substring of 13
 * characters or more a view of the string it was cut from, and a long concatenation (what
 * template literals and JSON.stringify return) a tree of its parts. Kept, the first holds
 * its whole parent alive (a request's URL); the second costs about half again its
 * characters (a node and a header for every part). Text kept for long is copied here once.
 */
export function ownString(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

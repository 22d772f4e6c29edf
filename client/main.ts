// Entry of the browser bundle: mounts each island on the server-rendered markup that asks for it.
// Every page works without this file; islands only enhance.
export {};

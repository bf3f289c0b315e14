// Lambda runs Node 22+; the AWS SDK's notice about this machine's Node 20 is noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

<?php
// Exit 0 once the site's database accepts its login (the entrypoint waits for it).
mysqli_report(MYSQLI_REPORT_OFF);
$password = trim((string) @file_get_contents('/run/secrets/db_password'));
$link = @mysqli_connect(getenv('BERTH_DB_HOST'), 'wordpress', $password, 'wordpress');
exit($link ? 0 : 1);

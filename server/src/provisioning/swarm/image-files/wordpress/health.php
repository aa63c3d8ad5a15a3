<?php echo "ok\n";
